#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECore
import CLinuxHardware
import Foundation
import Synchronization

/// A dedicated thread that poll()s one file descriptor and an eventfd used to wake it for `stop()`.
///
/// Ownership rules that keep it safe whatever order things happen in:
/// - the wake eventfd is written only while it is known open (under the state lock), and an eventfd write
///   cannot raise SIGPIPE even if nobody reads it;
/// - cleanup (closing the eventfd, then `onFinish`) runs exactly once, when both the thread has
///   exited and `stop()` has been called, by whichever of the two comes last;
/// - `stop()` called on the reader thread itself (a handler dropping the last reference to its
///   owner) wakes the loop but does not wait for the thread it is running on.
final class FDReaderThread: Sendable {
    enum ReadOutcome: Sendable {
        case `continue`
        /// Stop reading; `errno` is reported to `onFailure`.
        case failed(errno: Int32)
    }

    private struct State {
        var stopRequested = false
        var threadFinished = false
        var cleanedUp = false
        var readerThread: pthread_t?
    }

    /// Shared between the owner and the thread; the thread never captures the FDReaderThread itself,
    /// so dropping the owner runs deinit → stop().
    private final class Core: Sendable {
        let state = Mutex(State())
        let finished = DispatchSemaphore(value: 0)
        let wakeFD: Int32
        let onFinish: @Sendable () -> Void

        init(wakeFD: Int32, onFinish: @escaping @Sendable () -> Void) {
            self.wakeFD = wakeFD
            self.onFinish = onFinish
        }

        /// True for the caller that completes the pair (thread finished + stop requested) first.
        func claimCleanup(_ state: inout State) -> Bool {
            guard state.threadFinished, state.stopRequested, !state.cleanedUp else { return false }
            state.cleanedUp = true
            return true
        }

        func finish() {
            close(wakeFD)
            onFinish()
        }
    }

    private let core: Core

    /// Starts reading. `onReadable` runs on the reader thread whenever `fd` is readable;
    /// `onFailure` runs there once if reading stops for a reason other than `stop()`;
    /// `onFinish` runs once after the thread has ended and `stop()` was called (release resources there).
    /// Throws the errno when no eventfd can be created.
    init(name: String, fd: Int32,
         onReadable: @escaping @Sendable (Int32) -> ReadOutcome,
         onFailure: @escaping @Sendable (Int32) -> Void,
         onFinish: @escaping @Sendable () -> Void) throws(FDReaderError) {
        let wake = clh_wake_eventfd()
        guard wake >= 0 else { throw FDReaderError(errno: -wake) }
        let core = Core(wakeFD: wake, onFinish: onFinish)
        self.core = core
        NamedThread.start(name) {
            core.state.withLock { $0.readerThread = pthread_self() }
            Self.loop(fd: fd, core: core, onReadable: onReadable, onFailure: onFailure)
            let cleanUp = core.state.withLock { state -> Bool in
                state.threadFinished = true
                return core.claimCleanup(&state)
            }
            if cleanUp { core.finish() }
            core.finished.signal()
        }
    }

    private static func loop(fd: Int32, core: Core,
                             onReadable: @Sendable (Int32) -> ReadOutcome, onFailure: @Sendable (Int32) -> Void) {
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: core.wakeFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                onFailure(code)
                return
            }
            if fds[1].revents != 0 || core.state.withLock({ $0.stopRequested }) { return }
            if fds[0].revents & Int16(POLLIN) != 0 {
                if case let .failed(code) = onReadable(fd) {
                    if !core.state.withLock({ $0.stopRequested }) { onFailure(code) }
                    return
                }
                continue
            }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                onFailure(EIO)
                return
            }
        }
    }

    /// Wakes and ends the thread, then releases resources. Idempotent; never blocks when called
    /// from the reader thread itself (cleanup then happens as that thread unwinds).
    func stop() {
        let core = self.core
        let (cleanUp, wait) = core.state.withLock { state -> (Bool, Bool) in
            guard !state.stopRequested else { return (false, false) }
            state.stopRequested = true
            // The eventfd is still open here: cleanup needs stopRequested, which only we just set.
            if !state.threadFinished { _ = clh_eventfd_signal(core.wakeFD) }
            let onReader = state.readerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            return (core.claimCleanup(&state), !state.threadFinished && !onReader)
        }
        if cleanUp { core.finish() }
        if wait { core.finished.wait() }
    }

    /// Whether the reader thread has ended (after `stop()` or a failure).
    var isFinished: Bool { core.state.withLock { $0.threadFinished } }

    deinit { stop() }
}

/// The kernel refused to create the wake eventfd.
struct FDReaderError: Error, Equatable {
    var errno: Int32
}

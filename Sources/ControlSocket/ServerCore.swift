#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The part of a running server shared between the loop thread and publishers, deferred replies
/// and `stop()` on any thread: queued updates and replies, the stop request and the wake-up pipe,
/// all under one lock so a wake-up can be neither lost nor written to a closed pipe. Only
/// non-blocking calls run under the lock.
final class ServerCore: Sendable {
    /// What the loop picks up when woken.
    struct Work {
        var updates: [(topic: WatchTopic, line: [UInt8])] = []
        /// Completed deferred replies, by the token of the request they answer.
        var replies: [(token: UInt64, line: [UInt8])] = []
    }

    private struct State {
        var pending: [(topic: WatchTopic, line: [UInt8])] = []
        /// At most one per outstanding deferred request (a reply completes once), so bounded by the clients.
        var replies: [(token: UInt64, line: [UInt8])] = []
        var stopRequested = false
        /// A byte is in the pipe and not yet drained: further wake-ups are free.
        var wakeSignalled = false
        var wakeClosed = false
    }

    /// Updates queued while the loop is busy. The loop drains them at its next wake-up, so this is
    /// only reached if it is stuck; dropping the oldest then keeps memory bounded.
    static let maxPendingUpdates = 1024

    private let state = Mutex(State())
    let wakeReadFD: Int32
    private let wakeWriteFD: Int32
    /// Connections currently watching sensors; publishers skip encoding entirely when it is zero.
    let watchers = Atomic<Int>(0)

    /// A non-blocking close-on-exec self-pipe; nil with errno set on failure.
    init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        guard Posix.makeNonBlockingCloseOnExec(fds[0]), Posix.makeNonBlockingCloseOnExec(fds[1]) else {
            let code = errno
            Posix.close(fds[0])
            Posix.close(fds[1])
            errno = code
            return nil
        }
        wakeReadFD = fds[0]
        wakeWriteFD = fds[1]
    }

    func enqueue(_ line: [UInt8], for topic: WatchTopic = .sensors) {
        state.withLock { state in
            guard !state.stopRequested else { return }
            state.pending.append((topic, line))
            // The oldest sensor update goes: a pairing event (a passkey being typed) is never pushed out by them.
            if state.pending.count > Self.maxPendingUpdates, let oldest = state.pending.firstIndex(where: { $0.topic == .sensors }) {
                state.pending.remove(at: oldest)
            }
            if state.pending.count > 2 * Self.maxPendingUpdates { state.pending.removeFirst() }
            signal(&state)
        }
    }

    /// Hands a deferred reply to the loop; dropped once the server stops (its client is gone too).
    func deliverReply(_ line: [UInt8], token: UInt64) {
        state.withLock { state in
            guard !state.stopRequested else { return }
            state.replies.append((token, line))
            signal(&state)
        }
    }

    func requestStop() {
        state.withLock { state in
            state.stopRequested = true
            signal(&state)
        }
    }

    /// Called by the loop when the pipe is readable: the queued updates and replies, or nil when asked to stop.
    func takeWork() -> Work? {
        state.withLock { state in
            var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            while withUnsafeMutableBytes(of: &scratch, { read(wakeReadFD, $0.baseAddress, $0.count) }) > 0 {}
            state.wakeSignalled = false
            if state.stopRequested { return nil }
            defer {
                state.pending = []
                state.replies = []
            }
            return Work(updates: state.pending, replies: state.replies)
        }
    }

    /// Called by the loop thread as it exits; later wake-ups become no-ops.
    func closeWakePipe() {
        state.withLock { state in
            state.stopRequested = true
            state.wakeClosed = true
            state.pending = []
            state.replies = []
            Posix.close(wakeReadFD)
            Posix.close(wakeWriteFD)
        }
    }

    private func signal(_ state: inout State) {
        guard !state.wakeClosed, !state.wakeSignalled else { return }
        state.wakeSignalled = true
        var byte: UInt8 = 1
        // Non-blocking, and the pipe holds at most this one byte, so the write cannot block.
        _ = write(wakeWriteFD, &byte, 1)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
@testable import Sensors

/// The GPIO edge reader's thread, exercised with a pipe standing in for the line's event fd.
@Suite struct FDReaderThreadTests {
    final class Box: Sendable {
        let reader = Mutex<FDReaderThread?>(nil)
        let finishes = Mutex(0)
        let failures = Mutex<[Int32]>([])
        let bytes = Mutex(0)
        let failed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        return (fds[0], fds[1])
    }

    func start(_ box: Box, fd: Int32, stopFromHandler: Bool = false) throws -> FDReaderThread {
        let reader = try FDReaderThread(
            name: "test-reader", fd: fd,
            onReadable: { fd in
                var buffer = [UInt8](repeating: 0, count: 16)
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { return .failed(errno: count == 0 ? EPIPE : errno) }
                box.bytes.withLock { $0 += count }
                if stopFromHandler {
                    // The handler drops the last reference to its owner: deinit → stop() on this thread.
                    let reader = box.reader.withLock { reader -> FDReaderThread? in
                        defer { reader = nil }
                        return reader
                    }
                    reader?.stop()
                }
                return .continue
            },
            onFailure: { code in
                box.failures.withLock { $0.append(code) }
                box.failed.signal()
            },
            onFinish: {
                box.finishes.withLock { $0 += 1 }
                box.finished.signal()
            })
        return reader
    }

    /// The reader ends on its own (the fd hung up), then stop() and deinit run: with a wake pipe whose
    /// read end the thread had closed, that write raised SIGPIPE and killed the process.
    @Test func stopAfterTheReaderFailedIsSafe() throws {
        signal(SIGPIPE, SIG_DFL)
        let box = Box()
        let (readFD, writeFD) = try makePipe()
        defer { close(readFD) }
        var reader: FDReaderThread? = try start(box, fd: readFD)
        close(writeFD)
        #expect(box.failed.wait(timeout: .now() + 5) == .success)
        #expect(box.failures.withLock { $0 } == [EIO], "hang-up is reported as EIO")
        #expect(box.finishes.withLock { $0 } == 0, "resources stay owned until stop()")
        reader?.stop()
        reader?.stop()
        reader = nil
        #expect(box.finishes.withLock { $0 } == 1)
    }

    @Test func stopWakesABlockedReaderAndReleasesOnce() throws {
        let box = Box()
        let (readFD, writeFD) = try makePipe()
        defer { close(readFD); close(writeFD) }
        let reader = try start(box, fd: readFD)
        #expect(write(writeFD, "abc", 3) == 3)
        reader.stop()
        #expect(reader.isFinished)
        #expect(box.finishes.withLock { $0 } == 1)
        #expect(box.failures.withLock { $0 }.isEmpty, "a requested stop is not a failure")
    }

    /// stop() on the reader thread itself must not wait for that thread (it would wait forever).
    @Test func stopFromTheReaderThreadDoesNotDeadlock() throws {
        let box = Box()
        let (readFD, writeFD) = try makePipe()
        defer { close(readFD); close(writeFD) }
        box.reader.withLock { $0 = try? start(box, fd: readFD, stopFromHandler: true) }
        try #require(box.reader.withLock { $0 != nil })
        #expect(write(writeFD, "x", 1) == 1)
        #expect(box.finished.wait(timeout: .now() + 5) == .success, "the reader deadlocked on itself")
        #expect(box.finishes.withLock { $0 } == 1)
        #expect(box.bytes.withLock { $0 } == 1)
    }
}

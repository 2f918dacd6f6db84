#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CBluetoothShim
import HCI
import Synchronization

/// A self-pipe that lets one thread interrupt another thread's poll(): once signalled, its read
/// end stays readable, so every later poll on it returns at once too, until `drain()`.
///
/// `@unchecked Sendable`: the descriptors are immutable after init and are only closed inside the
/// mutex, which also records that they are closed, so no thread writes to a recycled descriptor.
final class WakePipe: @unchecked Sendable {
    let readDescriptor: Int32
    private let writeDescriptor: Int32
    private let state = Mutex<(signalled: Bool, closed: Bool)>((false, false))

    init() throws(HCITransportError) {
        var fds: [Int32] = [-1, -1]
        guard bls_pipe(&fds) == 0 else { throw SystemCall.failure("pipe", errno: errno) }
        readDescriptor = fds[0]
        writeDescriptor = fds[1]
    }

    var isSignalled: Bool { state.withLock { $0.signalled } }

    /// Wakes every current and future poll on `readDescriptor`. Idempotent.
    func signal() {
        state.withLock { state in
            guard !state.closed, !state.signalled else { return }
            state.signalled = true
            var byte: UInt8 = 1
            // The pipe is empty and non-blocking, so a one-byte write cannot block or fail usefully.
            _ = write(writeDescriptor, &byte, 1)
        }
    }

    /// Empties the pipe so it can be signalled again (a repeated wake-up, not a one-shot stop).
    func drain() {
        state.withLock { state in
            guard !state.closed else { return }
            var scratch = [UInt8](repeating: 0, count: 64)
            while scratch.withUnsafeMutableBytes({ read(readDescriptor, $0.baseAddress, $0.count) }) > 0 {}
            state.signalled = false
        }
    }

    func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            _ = closeDescriptor(readDescriptor)
            _ = closeDescriptor(writeDescriptor)
        }
    }

    deinit { close() }
}

/// close(2) under a name that does not collide with the transports' own `close()`.
@discardableResult
func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    Darwin.close(fd)
    #elseif canImport(Musl)
    Musl.close(fd)
    #else
    Glibc.close(fd)
    #endif
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing

/// The controller side of an H4-over-TCP link, built from plain sockets so the test exercises
/// the transport against the real kernel. Every wait has a deadline so a bug cannot hang the run.
final class TestTCPServer {
    let port: UInt16
    private let listener: Int32
    private(set) var connection: Int32 = -1

    /// Binds 127.0.0.1 on an ephemeral port without listening: connects are refused until `listen()`.
    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestSocketError.failed("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            Glibc.close(listener)
            throw TestSocketError.failed("bind", errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard named == 0 else { throw TestSocketError.failed("getsockname", errno) }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
    }

    func listen() throws {
        guard Glibc.listen(listener, 1) == 0 else { throw TestSocketError.failed("listen", errno) }
    }

    func accept(timeoutMilliseconds: Int32 = 10_000) throws {
        guard TestIO.waitReadable(listener, timeoutMilliseconds: timeoutMilliseconds) else {
            throw TestSocketError.timedOut("accept")
        }
        connection = Glibc.accept(listener, nil, nil)
        guard connection >= 0 else { throw TestSocketError.failed("accept", errno) }
    }

    func write(_ bytes: [UInt8]) throws {
        try TestIO.writeAll(connection, bytes)
    }

    func read(count: Int) throws -> [UInt8] {
        try TestIO.read(connection, count: count)
    }

    func closeConnection() {
        if connection >= 0 { Glibc.close(connection) }
        connection = -1
    }

    deinit {
        closeConnection()
        Glibc.close(listener)
    }
}

enum TestSocketError: Error {
    case failed(String, Int32)
    case timedOut(String)
}

/// Deadline-bounded blocking I/O for the test's side of a link.
enum TestIO {
    static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, timeoutMilliseconds) == 1
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard written > 0 else { throw TestSocketError.failed("write", errno) }
            offset += written
        }
    }

    /// Reads exactly `count` bytes, failing after 10 s of silence.
    static func read(_ fd: Int32, count: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while result.count < count {
            guard waitReadable(fd, timeoutMilliseconds: 10_000) else { throw TestSocketError.timedOut("read") }
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, count - result.count) }
            if got < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard got > 0 else { throw TestSocketError.failed("read", got == 0 ? 0 : errno) }
            result += buffer[0..<got]
        }
        return result
    }
}

/// Runs blocking work on its own thread so it cannot starve Swift's small cooperative pool
/// (two threads on a two-core machine), which the transports' async code also needs.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

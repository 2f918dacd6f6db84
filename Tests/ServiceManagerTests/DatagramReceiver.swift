#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A bound AF_UNIX datagram socket standing in for systemd's notification socket.
final class DatagramReceiver {
    let descriptor: Int32
    /// What `NOTIFY_SOCKET` should say: the path, or `@name` for the abstract namespace.
    let notifySocket: String
    private let path: String?

    enum Failure: Error, CustomStringConvertible {
        case systemCall(String, Int32)
        var description: String {
            guard case let .systemCall(operation, code) = self else { return "" }
            return "\(operation): \(String(cString: strerror(code)))"
        }
    }

    /// Binds a socket at a fresh path under /tmp, or in the abstract namespace.
    init(abstract: Bool) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.systemCall("socket", errno) }
        let name = "blesensor-notify-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        path = abstract ? nil : "/tmp/" + name
        notifySocket = abstract ? "@" + name : "/tmp/" + name
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8] = abstract ? [0] + Array(name.utf8) : Array(("/tmp/" + name).utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(2 + bytes.count + (abstract ? 0 : 1))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw Failure.systemCall("bind", code)
        }
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }

    /// The next datagram, without waiting: unix datagrams are queued by the time sendto(2)
    /// returns, so an empty queue means the notifier sent nothing (and the test must not hang).
    func receiveNow() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count >= 0 else { throw Failure.systemCall("recv", errno) }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}

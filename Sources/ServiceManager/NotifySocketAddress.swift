#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `NOTIFY_SOCKET` value as an AF_UNIX address: a filesystem path (`/run/systemd/notify`) or,
/// when it starts with `@`, a name in the abstract namespace (the `@` stands for a leading NUL).
struct NotifySocketAddress: Sendable, Equatable {
    /// The bytes of `sun_path` that count: for an abstract name the leading NUL and the name,
    /// with no terminator (abstract names are length-delimited, a trailing NUL would name
    /// another socket); for a path the path without its terminator.
    let pathBytes: [UInt8]
    let isAbstract: Bool

    /// `sun_path` is 108 bytes on Linux.
    static let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    init(parsing value: String) throws(SystemdNotifyError) {
        let bytes = Array(value.utf8)
        if value.hasPrefix("@") {
            guard bytes.count > 1 else {
                throw .invalidSocketAddress(value, reason: "the abstract socket name after '@' is empty")
            }
            pathBytes = [0] + bytes.dropFirst()
            isAbstract = true
            guard pathBytes.count <= Self.capacity else {
                throw .invalidSocketAddress(value, reason: "longer than the \(Self.capacity - 1)-byte limit of an abstract socket name")
            }
        } else if value.hasPrefix("/") {
            pathBytes = bytes
            isAbstract = false
            // The path needs room for its terminating NUL.
            guard pathBytes.count < Self.capacity else {
                throw .invalidSocketAddress(value, reason: "longer than the \(Self.capacity - 1)-byte limit of a socket path")
            }
        } else if value.hasPrefix("vsock:") {
            throw .invalidSocketAddress(value, reason: "AF_VSOCK notification (a service manager outside this VM) is not supported")
        } else {
            throw .invalidSocketAddress(value, reason: "expected an absolute path or '@' and an abstract socket name")
        }
    }

    /// Runs `body` with a `sockaddr_un` for this address and its exact length.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        // A path's length includes its NUL (the zeroed byte after it); an abstract name's must not.
        let length = pathOffset + pathBytes.count + (isAbstract ? 0 : 1)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}

/// An errno value from a failed system call.
public struct SystemErrno: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int32

    public init(_ code: Int32) { self.code = code }

    /// The C library's text and the number: `Operation not permitted (errno 1)`.
    public var description: String { "\(SystemCall.message(code)) (errno \(code))" }
}

/// The system calls that take a local adapter for the HCI user channel, behind a seam so every
/// decision (power it down, retry, unblock rfkill, which message) is tested without Bluetooth in
/// the kernel. `LinuxHCISystemCalls` is the real one.
///
/// Calling context: every call may block (HCIDEVDOWN waits for the controller, seconds at worst):
/// call them from a dedicated thread, never from a Swift concurrency thread or under a lock.
public protocol HCISystemCalls: Sendable {
    /// An unbound raw HCI socket (non-blocking, close-on-exec).
    func openSocket() -> Result<Int32, SystemErrno>
    /// Whether hciN is up (HCIGETDEVINFO); ENODEV when there is no hciN.
    func isUp(_ socket: Int32, index: UInt16) -> Result<Bool, SystemErrno>
    /// Powers hciN down (HCIDEVDOWN); needs CAP_NET_ADMIN.
    func powerDown(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno>
    /// Binds the socket to hciN's user channel (exclusive raw access).
    func bindUserChannel(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno>
    func close(_ descriptor: Int32)
    /// Clears the soft block of rfkill switch `index` through /dev/rfkill (root only, normally).
    func unblockRfkill(index: UInt32) -> Result<Void, SystemErrno>
}

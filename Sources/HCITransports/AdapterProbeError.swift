/// Why the adapter probe could not say something about an adapter, with what to check.
public enum AdapterProbeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// There is no `hciN` (in sysfs, or the kernel said ENODEV).
    case noSuchAdapter(String)
    /// A sysfs file or directory exists but cannot be read.
    case unreadable(path: String, SystemErrno)
    /// A sysfs file holds something other than what the kernel writes there.
    case malformed(path: String, content: String, expected: String)
    /// The kernel has no Bluetooth sockets (no `bluetooth` module).
    case bluetoothUnsupported(SystemErrno)
    /// An HCI socket call failed.
    case systemCallFailed(operation: String, SystemErrno)

    public var description: String {
        switch self {
        case let .noSuchAdapter(name):
            return "\(name) does not exist: `ls /sys/class/bluetooth` lists the adapters the kernel has"
        case let .unreadable(path, error):
            return "cannot read \(path): \(error)"
        case let .malformed(path, content, expected):
            let shown = content.count > 40 ? String(content.prefix(40)) + "…" : content
            return "\(path) holds '\(shown)', not \(expected): is something other than sysfs mounted there?"
        case let .bluetoothUnsupported(error):
            return "this kernel has no Bluetooth sockets (\(error)): load them with `sudo modprobe bluetooth`"
        case let .systemCallFailed(operation, error):
            return "\(operation) failed: \(error)"
        }
    }
}

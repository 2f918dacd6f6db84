/// Failures of a controller link, each phrased so the user knows what to do next.
public enum HCITransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `--transport` string could not be understood.
    case invalidSpecification(String, reason: String)
    /// The controller device does not exist (no `hciN`, no such serial port).
    case deviceNotFound(String)
    /// The adapter `hciN` does not exist; the hint names the adapters that do and what to check.
    case adapterNotFound(String, hint: String)
    /// rfkill keeps the adapter's radio off; the hint says how to clear it, or that software cannot.
    case rfkillBlocked(String, RfkillBlock, hint: String)
    /// The process lacks the privilege the transport needs.
    case permissionDenied(String, hint: String)
    /// The adapter is up or held by another program (usually bluetoothd).
    case adapterBusy(String, hint: String)
    /// A system call failed.
    case systemCallFailed(operation: String, errno: Int32, message: String)
    /// The peer closed the link (TCP server went away, serial device unplugged).
    case disconnected(String)
    /// `send` or `open` on a transport that is closed.
    case notOpen(String)
    /// Bytes arrived that cannot be an H4 stream; framing is lost.
    case framingLost(String)
    /// The kernel has no Bluetooth socket support (AF_BLUETOOTH), so `hci:N` cannot work here.
    case bluetoothUnsupported(String)
    /// `open` on a transport that was opened before; transports are single-use.
    case alreadyOpen(String)
    /// `open` was abandoned because the task was cancelled or `close()` was called meanwhile.
    case cancelled(String)
    /// The btsnoop capture file could not be created or written.
    case snoopFileFailed(path: String, reason: String)
    /// More packets wait to be written than the transport queues; the controller is not reading.
    case transmitQueueFull(String, limit: Int)
    /// Packets waited `milliseconds` without the controller accepting a byte.
    case stalled(String, milliseconds: Int64)
    /// The kernel refused one packet as malformed (EINVAL): a bug in this host, dropped while the
    /// link goes on. `queued` counts the packets that were waiting with it.
    case packetRefused(String, packet: String, queued: Int, errno: Int32, message: String)

    public var description: String {
        switch self {
        case let .invalidSpecification(spec, reason):
            return "invalid transport '\(spec)': \(reason). Use tcp:HOST:PORT, hci:N, uart:/dev/ttyX?baud=115200&flow=on or virtual"
        case let .deviceNotFound(device):
            return "\(device) not found: check the adapter is attached and the name is right (ls /sys/class/bluetooth, ls /dev/tty*)"
        case let .adapterNotFound(device, hint):
            return "\(device) not found: \(hint)"
        case let .rfkillBlocked(device, block, hint):
            return "\(device) is \(block) by rfkill: \(hint)"
        case let .permissionDenied(device, hint):
            return "permission denied opening \(device): \(hint)"
        case let .adapterBusy(device, hint):
            return "\(device) is busy: \(hint)"
        case let .systemCallFailed(operation, errno, message):
            return "\(operation) failed: \(message) (errno \(errno))"
        case let .disconnected(reason):
            return "controller link lost: \(reason)"
        case let .notOpen(name):
            return "transport \(name) is not open"
        case let .framingLost(reason):
            return "H4 framing lost: \(reason)"
        case let .bluetoothUnsupported(detail):
            return "this kernel has no Bluetooth support (\(detail)): load it with `sudo modprobe bluetooth`, or use --transport tcp:HOST:PORT or virtual"
        case let .alreadyOpen(name):
            return "transport \(name) was already opened: create a new transport to reconnect"
        case let .cancelled(what):
            return "\(what) was cancelled before the controller link came up"
        case let .snoopFileFailed(path, reason):
            return "cannot write btsnoop file \(path): \(reason); check the directory exists and is writable"
        case let .transmitQueueFull(name, limit):
            return "controller link stalled: \(limit) packets wait to be written to \(name) and the controller is not reading them"
        case let .stalled(name, milliseconds):
            return "controller link stalled: \(name) accepted nothing for \(milliseconds) ms while packets waited (controller hung, or UART CTS held)"
        case let .packetRefused(name, packet, queued, errno, message):
            return "bug: \(name) refused a \(packet) with \(message) (errno \(errno)), \(queued) packet(s) queued; it was dropped and the link goes on. Please report this with the log"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internal resistor configuration for an input line.
public enum GPIOBias: Sendable, Equatable {
    case asIs
    case disabled
    case pullUp
    case pullDown
}

/// Which transitions the kernel should report.
public enum GPIOEdgeSelection: Sendable, Equatable {
    case rising
    case falling
    case both
}

/// One edge as stamped by the kernel (CLOCK_MONOTONIC nanoseconds).
public struct GPIOEdgeEvent: Sendable, Equatable {
    public enum Edge: Sendable, Equatable {
        case rising
        case falling
    }

    public var edge: Edge
    public var timestampNanoseconds: UInt64

    public init(edge: Edge, timestampNanoseconds: UInt64) {
        self.edge = edge
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// What an edge monitor delivers from its reader thread.
public enum GPIOMonitorEvent: Sendable, Equatable {
    case edge(GPIOEdgeEvent)
    /// The reader stopped because the line failed; no more events follow.
    case failed(GPIOError)
}

/// Why a GPIO operation failed.
public enum GPIOError: Error, Equatable, Sendable, CustomStringConvertible {
    case chipNotFound(String)
    case permissionDenied(String)
    case lineNotFound(chip: String, line: String)
    /// This process already holds the line (another sensor or command on the same line).
    case lineBusy(chip: String, offset: Int)
    /// The kernel refused the request (EBUSY): `consumer` holds it, as gpioinfo's "used by" shows.
    case lineInUse(chip: String, offset: Int, consumer: String)
    case requestFailed(chip: String, offset: Int, errno: Int32)
    case readFailed(chip: String, offset: Int, errno: Int32)
    case monitorFailed(chip: String, offset: Int, errno: Int32)

    public var description: String {
        switch self {
        case let .chipNotFound(chip):
            return "GPIO chip \(chip) not found: list chips with gpiodetect"
        case let .permissionDenied(chip):
            return "permission denied opening \(chip): run as root or add the user to the gpio group"
        case let .lineNotFound(chip, line):
            return "no GPIO line \(line) on \(chip): list lines with gpioinfo \(chip)"
        case let .lineBusy(chip, offset):
            return "GPIO line \(offset) on \(chip) is used by another consumer (see gpioinfo); stop it or pick another line"
        case let .lineInUse(chip, offset, consumer):
            let holder = consumer.isEmpty ? "a consumer that gave no name" : "\"\(consumer)\""
            return "GPIO line \(offset) on \(chip) is in use by \(holder) (gpioinfo \(chip) shows it): stop that program, "
                + "remove the driver or overlay that claims the line, or pick another line"
        case let .requestFailed(chip, offset, code):
            switch code {
            case EBUSY:
                return "could not request GPIO line \(offset) on \(chip): it is in use by another process or a kernel driver (see gpioinfo \(chip))"
            // 1.6 on kernels before 5.5 (no bias flags) says EINVAL; drivers without bias support may leak
            // the kernel's internal ENOTSUPP (524) or EOPNOTSUPP.
            case EINVAL, EOPNOTSUPP, 524:
                return "could not request GPIO line \(offset) on \(chip): the kernel or chip does not support the requested pull-up/pull-down bias: request the line without bias and fit an external resistor"
            default:
                return "could not request GPIO line \(offset) on \(chip): \(Self.errnoText(code)) (errno \(code))"
            }
        case let .readFailed(chip, offset, code):
            return "reading GPIO line \(offset) on \(chip) failed: \(Self.errnoText(code)) (errno \(code))"
        case let .monitorFailed(chip, offset, code):
            return "edge monitoring on GPIO line \(offset) of \(chip) failed: \(Self.errnoText(code)) (errno \(code)); the reader stopped"
        }
    }

    static func errnoText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

/// A running edge subscription; `stop()` ends the reader thread and releases the line.
public protocol GPIOEdgeMonitor: AnyObject, Sendable {
    func stop()
}

/// A single GPIO line.
public protocol GPIOLine: AnyObject, Sendable {
    var chipName: String { get }
    var offset: Int { get }
    var name: String? { get }

    /// Requests the line as input and returns its current level.
    func readInput(bias: GPIOBias, consumer: String) throws(GPIOError) -> Bool

    /// Requests edge events; `handler` runs on a dedicated reader thread, in kernel order.
    func monitorEdges(
        _ edges: GPIOEdgeSelection,
        bias: GPIOBias,
        consumer: String,
        handler: @escaping @Sendable (GPIOMonitorEvent) -> Void
    ) throws(GPIOError) -> any GPIOEdgeMonitor
}

/// A GPIO controller (/dev/gpiochipN).
public protocol GPIOChip: AnyObject, Sendable {
    var name: String { get }
    func line(offset: Int) throws(GPIOError) -> any GPIOLine
    func line(named name: String) throws(GPIOError) -> any GPIOLine
}

extension GPIOChip {
    /// `spec` is a numeric offset ("17") or a line name ("GPIO17").
    public func line(_ spec: String) throws(GPIOError) -> any GPIOLine {
        if let offset = Int(spec), offset >= 0 { return try line(offset: offset) }
        return try line(named: spec)
    }
}

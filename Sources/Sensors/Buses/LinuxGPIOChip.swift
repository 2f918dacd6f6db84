#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinuxHardware
import Foundation
import Logging
import Synchronization

/// A /dev/gpiochipN through libgpiod 1.6.
public final class LinuxGPIOChip: GPIOChip, @unchecked Sendable {
    // @unchecked: the chip handle is only used for line lookup (serialised by `lock`) and closed in deinit.
    public let name: String
    private let chip: OpaquePointer
    private let lock = Mutex(())

    /// `name` is "gpiochip0", a path, a number or a label, as gpiod_chip_open_lookup accepts.
    public init(name: String) throws(GPIOError) {
        guard let handle = gpiod_chip_open_lookup(name) else {
            let code = errno
            if code == EACCES || code == EPERM { throw .permissionDenied(name) }
            throw .chipNotFound(name)
        }
        self.name = name
        self.chip = handle
    }

    deinit { gpiod_chip_close(chip) }

    public func line(offset: Int) throws(GPIOError) -> any GPIOLine {
        guard offset >= 0, offset < Int(gpiod_chip_num_lines(chip)) else {
            throw .lineNotFound(chip: name, line: String(offset))
        }
        let handle: OpaquePointer? = lock.withLock { _ in gpiod_chip_get_line(chip, UInt32(offset)) }
        guard let handle else { throw .lineNotFound(chip: name, line: String(offset)) }
        return LinuxGPIOLine(chip: self, handle: handle, offset: offset)
    }

    public func line(named lineName: String) throws(GPIOError) -> any GPIOLine {
        let handle: OpaquePointer? = lock.withLock { _ in gpiod_chip_find_line(chip, lineName) }
        guard let handle else { throw .lineNotFound(chip: name, line: lineName) }
        return LinuxGPIOLine(chip: self, handle: handle, offset: Int(gpiod_line_offset(handle)))
    }
}

/// A line owned by a `LinuxGPIOChip`; keeps the chip alive while it exists.
final class LinuxGPIOLine: GPIOLine, @unchecked Sendable {
    // @unchecked: the libgpiod line handle is requested and released under `requestLock`.
    private let chip: LinuxGPIOChip
    private let handle: OpaquePointer
    private let requestLock = Mutex(false)
    let offset: Int

    init(chip: LinuxGPIOChip, handle: OpaquePointer, offset: Int) {
        self.chip = chip
        self.handle = handle
        self.offset = offset
    }

    var chipName: String { chip.name }

    var name: String? {
        guard let cName = gpiod_line_name(handle) else { return nil }
        return String(cString: cName)
    }

    static func flags(for bias: GPIOBias) -> Int32 {
        switch bias {
        case .asIs: return 0
        case .disabled: return clh_gpiod_flag_bias_disable()
        case .pullUp: return clh_gpiod_flag_pull_up()
        case .pullDown: return clh_gpiod_flag_pull_down()
        }
    }

    private func request(type: Int32, bias: GPIOBias, consumer: String) throws(GPIOError) {
        let status = requestLock.withLock { requested -> Int32 in
            if requested { return -EBUSY }
            let result = clh_gpiod_line_request(handle, consumer, type, Self.flags(for: bias))
            if result == 0 { requested = true }
            return result
        }
        if status == -EBUSY { throw .lineBusy(chip: chip.name, offset: offset) }
        if status < 0 { throw .requestFailed(chip: chip.name, offset: offset, errno: -status) }
    }

    func release() {
        requestLock.withLock { requested in
            if requested { gpiod_line_release(handle) }
            requested = false
        }
    }

    func readInput(bias: GPIOBias, consumer: String) throws(GPIOError) -> Bool {
        try request(type: clh_gpiod_request_input(), bias: bias, consumer: consumer)
        defer { release() }
        let value = gpiod_line_get_value(handle)
        guard value >= 0 else { throw .readFailed(chip: chip.name, offset: offset, errno: errno) }
        return value == 1
    }

    func monitorEdges(
        _ edges: GPIOEdgeSelection,
        bias: GPIOBias,
        consumer: String,
        handler: @escaping @Sendable (GPIOMonitorEvent) -> Void
    ) throws(GPIOError) -> any GPIOEdgeMonitor {
        let type: Int32
        switch edges {
        case .rising: type = clh_gpiod_request_rising_edge()
        case .falling: type = clh_gpiod_request_falling_edge()
        case .both: type = clh_gpiod_request_both_edges()
        }
        try request(type: type, bias: bias, consumer: consumer)
        let eventFD = gpiod_line_event_get_fd(handle)
        guard eventFD >= 0 else {
            let code = errno
            release()
            throw .monitorFailed(chip: chip.name, offset: offset, errno: code)
        }
        do {
            return try LinuxGPIOEdgeMonitor(line: self, eventFD: eventFD, handler: handler)
        } catch {
            release()
            throw .monitorFailed(chip: chip.name, offset: offset, errno: error.errno)
        }
    }
}

/// Edge events read on a dedicated thread (`FDReaderThread`: poll() on the line's event fd and a
/// wake eventfd), so stop() never waits on a timeout and can never write to a closed pipe.
final class LinuxGPIOEdgeMonitor: GPIOEdgeMonitor {
    private let reader: FDReaderThread
    private static let logger = Logger(label: "blesensor.sensors.gpio")

    init(line: LinuxGPIOLine, eventFD: Int32,
         handler: @escaping @Sendable (GPIOMonitorEvent) -> Void) throws(FDReaderError) {
        let chipName = line.chipName
        let offset = line.offset
        reader = try FDReaderThread(
            name: "gpio-edges-\(chipName)-\(offset)", fd: eventFD,
            onReadable: { fd in
                var events = [gpiod_line_event](repeating: gpiod_line_event(), count: 16)
                let count = events.withUnsafeMutableBufferPointer { buffer in
                    gpiod_line_event_read_fd_multiple(fd, buffer.baseAddress, UInt32(buffer.count))
                }
                guard count >= 0 else {
                    let code = errno
                    return code == EINTR || code == EAGAIN ? .continue : .failed(errno: code)
                }
                for event in events.prefix(Int(count)) {
                    let nanoseconds = UInt64(max(0, event.ts.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, event.ts.tv_nsec))
                    let edge: GPIOEdgeEvent.Edge = event.event_type == clh_gpiod_event_rising() ? .rising : .falling
                    handler(.edge(GPIOEdgeEvent(edge: edge, timestampNanoseconds: nanoseconds)))
                }
                return .continue
            },
            onFailure: { code in handler(.failed(.monitorFailed(chip: chipName, offset: offset, errno: code))) },
            // The line (and with it the event fd) is released only once the thread no longer polls it.
            onFinish: { line.release() })
        Self.logger.debug("monitoring edges", metadata: ["chip": "\(chipName)", "line": "\(offset)"])
    }

    func stop() { reader.stop() }
}

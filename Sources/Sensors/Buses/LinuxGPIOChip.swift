#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinuxHardware
import Foundation
import Logging
import Synchronization

/// A /dev/gpiochipN through libgpiod: 1.6 or 2.x, whichever pkg-config gave the build (`libgpiod`).
public final class LinuxGPIOChip: GPIOChip, @unchecked Sendable {
    // @unchecked: the chip handle is used only under `lock` (libgpiod's chip objects are not
    // thread-safe; 1.6 keeps its line objects in the chip) and closed in deinit.
    public let name: String
    private let handle: OpaquePointer
    private let lock = Mutex(())

    /// The libgpiod API the build compiled against (1 or 2) and the library version loaded at run time.
    public static var libgpiod: (api: Int, version: String) {
        (Int(clh_gpiod_api_major()), String(cString: clh_gpiod_library_version()))
    }

    /// `name` is "gpiochip0", a /dev path, a number or a label, as libgpiod 1.6's gpiod_chip_open_lookup
    /// accepts (the 2.x shim looks names up the same way).
    public init(name: String) throws(GPIOError) {
        var code: Int32 = 0
        guard let handle = clh_gpio_chip_open(name, &code) else { throw Self.openError(code, chip: name) }
        self.name = name
        self.handle = handle
    }

    deinit { clh_gpio_chip_close(handle) }

    /// ENOENT (no such device), ENOTTY/ENODEV (not a GPIO chip) and the rest: not found.
    static func openError(_ code: Int32, chip: String) -> GPIOError {
        code == EACCES || code == EPERM ? .permissionDenied(chip) : .chipNotFound(chip)
    }

    public func line(offset: Int) throws(GPIOError) -> any GPIOLine {
        let (exists, lineName) = lock.withLock { _ -> (Bool, String?) in
            guard offset >= 0, offset < Int(clh_gpio_chip_num_lines(handle)) else { return (false, nil) }
            return (true, Self.lineName(handle, offset: offset))
        }
        guard exists else { throw .lineNotFound(chip: name, line: String(offset)) }
        return LinuxGPIOLine(chip: self, offset: offset, name: lineName)
    }

    public func line(named lineName: String) throws(GPIOError) -> any GPIOLine {
        let offset = lock.withLock { _ in clh_gpio_chip_find_line(handle, lineName) }
        guard offset >= 0 else { throw .lineNotFound(chip: name, line: lineName) }
        return LinuxGPIOLine(chip: self, offset: Int(offset), name: lineName)
    }

    /// Runs `body` with the chip handle, serialised with every other use of it.
    func withHandle<Result>(_ body: (OpaquePointer) -> Result) -> Result {
        lock.withLock { _ in body(handle) }
    }

    private static func lineName(_ handle: OpaquePointer, offset: Int) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(CLH_GPIO_NAME_CAPACITY))
        let status = clh_gpio_line_name(handle, UInt32(offset), &buffer, buffer.count)
        guard status == 1 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Who holds the line according to the kernel (gpioinfo's "used by"); nil when free or unknown.
    func consumer(ofLine offset: Int) -> String? {
        withHandle { handle in
            var buffer = [CChar](repeating: 0, count: Int(CLH_GPIO_NAME_CAPACITY))
            guard clh_gpio_line_consumer(handle, UInt32(offset), &buffer, buffer.count) == 1 else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

/// A granted line request (clh_gpio_request); released exactly once, by `LinuxGPIOLine.release`.
struct LinuxGPIORequest: @unchecked Sendable {
    // @unchecked: only the reader thread reads events through it, and it is released after that thread ended.
    let pointer: OpaquePointer
}

/// A line owned by a `LinuxGPIOChip`; keeps the chip alive while it exists.
final class LinuxGPIOLine: GPIOLine, Sendable {
    private let chip: LinuxGPIOChip
    /// The line's current request by this process, if any.
    private let request = Mutex<LinuxGPIORequest?>(nil)
    let offset: Int
    let name: String?

    init(chip: LinuxGPIOChip, offset: Int, name: String?) {
        self.chip = chip
        self.offset = offset
        self.name = name
    }

    var chipName: String { chip.name }

    static func bias(_ bias: GPIOBias) -> clh_gpio_bias {
        switch bias {
        case .asIs: CLH_GPIO_BIAS_AS_IS
        case .disabled: CLH_GPIO_BIAS_DISABLED
        case .pullUp: CLH_GPIO_BIAS_PULL_UP
        case .pullDown: CLH_GPIO_BIAS_PULL_DOWN
        }
    }

    static func edges(_ edges: GPIOEdgeSelection) -> clh_gpio_edges {
        switch edges {
        case .rising: CLH_GPIO_EDGES_RISING
        case .falling: CLH_GPIO_EDGES_FALLING
        case .both: CLH_GPIO_EDGES_BOTH
        }
    }

    /// The kernel refused the request: EBUSY names the holder when the kernel knows it.
    static func requestError(_ code: Int32, chip: String, offset: Int, holder: String?) -> GPIOError {
        if code == EBUSY, let holder { return .lineInUse(chip: chip, offset: offset, consumer: holder) }
        return .requestFailed(chip: chip, offset: offset, errno: code)
    }

    private func acquire(edges: clh_gpio_edges, bias: GPIOBias, consumer: String) throws(GPIOError) -> LinuxGPIORequest {
        let outcome = request.withLock { current -> Result<LinuxGPIORequest, GPIOError> in
            if current != nil { return .failure(.lineBusy(chip: chip.name, offset: offset)) }
            var code: Int32 = 0
            let granted = chip.withHandle { handle in
                clh_gpio_request_input(handle, UInt32(offset), edges, Self.bias(bias), consumer, &code)
            }
            guard let granted else { return .failure(.requestFailed(chip: chip.name, offset: offset, errno: code)) }
            let made = LinuxGPIORequest(pointer: granted)
            current = made
            return .success(made)
        }
        switch outcome {
        case let .success(granted): return granted
        case let .failure(.requestFailed(chipName, offset, code)):
            throw Self.requestError(code, chip: chipName, offset: offset, holder: code == EBUSY ? chip.consumer(ofLine: offset) : nil)
        case let .failure(error): throw error
        }
    }

    func release() {
        request.withLock { current in
            guard let granted = current else { return }
            chip.withHandle { _ in clh_gpio_request_release(granted.pointer) }
            current = nil
        }
    }

    func readInput(bias: GPIOBias, consumer: String) throws(GPIOError) -> Bool {
        let granted = try acquire(edges: CLH_GPIO_EDGES_NONE, bias: bias, consumer: consumer)
        defer { release() }
        let value = clh_gpio_request_value(granted.pointer)
        guard value >= 0 else { throw .readFailed(chip: chip.name, offset: offset, errno: -value) }
        return value == 1
    }

    func monitorEdges(
        _ edges: GPIOEdgeSelection,
        bias: GPIOBias,
        consumer: String,
        handler: @escaping @Sendable (GPIOMonitorEvent) -> Void
    ) throws(GPIOError) -> any GPIOEdgeMonitor {
        let granted = try acquire(edges: Self.edges(edges), bias: bias, consumer: consumer)
        let eventFD = clh_gpio_request_event_fd(granted.pointer)
        guard eventFD >= 0 else {
            release()
            throw .monitorFailed(chip: chip.name, offset: offset, errno: -eventFD)
        }
        do {
            return try LinuxGPIOEdgeMonitor(line: self, request: granted, eventFD: eventFD, handler: handler)
        } catch {
            release()
            throw .monitorFailed(chip: chip.name, offset: offset, errno: error.errno)
        }
    }
}

/// Edge events read on a dedicated thread (`FDReaderThread`: poll() on the request's event fd and a
/// wake eventfd), so stop() never waits on a timeout and can never write to a closed pipe.
final class LinuxGPIOEdgeMonitor: GPIOEdgeMonitor {
    private let reader: FDReaderThread
    private static let logger = Logger(label: "blesensor.sensors.gpio")

    init(line: LinuxGPIOLine, request: LinuxGPIORequest, eventFD: Int32,
         handler: @escaping @Sendable (GPIOMonitorEvent) -> Void) throws(FDReaderError) {
        let chipName = line.chipName
        let offset = line.offset
        reader = try FDReaderThread(
            name: "gpio-edges-\(chipName)-\(offset)", fd: eventFD,
            onReadable: { _ in
                var events = [clh_gpio_edge_event](repeating: clh_gpio_edge_event(), count: 16)
                let count = events.withUnsafeMutableBufferPointer { buffer in
                    clh_gpio_request_read_edges(request.pointer, buffer.baseAddress, UInt32(buffer.count))
                }
                guard count >= 0 else {
                    return -count == EINTR || -count == EAGAIN ? .continue : .failed(errno: -count)
                }
                for event in events.prefix(Int(count)) {
                    let edge: GPIOEdgeEvent.Edge = event.rising ? .rising : .falling
                    handler(.edge(GPIOEdgeEvent(edge: edge, timestampNanoseconds: event.timestamp_ns)))
                }
                return .continue
            },
            onFailure: { code in handler(.failed(.monitorFailed(chip: chipName, offset: offset, errno: code))) },
            // The line (and with it the event fd) is released only once the thread no longer polls it.
            onFinish: { line.release() })
        Self.logger.debug("monitoring edges", metadata: ["chip": "\(chipName)", "line": "\(offset)",
                                                         "libgpiod": "\(LinuxGPIOChip.libgpiod.version)"])
    }

    func stop() { reader.stop() }
}

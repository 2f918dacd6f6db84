#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinuxHardware
import Synchronization

/// /dev/i2c-N through i2c-dev: SMBus calls via libi2c, combined transfers via I2C_RDWR.
public final class LinuxI2CBus: I2CBus {
    public let busNumber: Int
    private let fd: Int32
    /// The fd is shared and I2C_SLAVE is per-fd state, so address selection and transfer are one critical section.
    private let selectedAddress = Mutex<UInt8?>(nil)

    public init(busNumber: Int, devicePath: String? = nil) throws(SensorBusError) {
        self.busNumber = busNumber
        let path = devicePath ?? "/dev/i2c-\(busNumber)"
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT, ENODEV, ENXIO: throw .busMissing(bus: busNumber)
            case EACCES, EPERM: throw .permissionDenied(bus: busNumber)
            default: throw .system(bus: busNumber, address: 0, errno: errno)
            }
        }
        fd = descriptor
    }

    deinit { close(fd) }

    /// Maps a negative errno from the wrappers to the error a user can act on.
    static func error(_ code: Int32, bus: Int, address: UInt8) -> SensorBusError {
        switch code {
        case ENXIO, ENODEV: return .noDevice(bus: bus, address: address)
        case EREMOTEIO: return .remoteIO(bus: bus, address: address)
        case EIO: return .ioError(bus: bus, address: address)
        case ETIMEDOUT, EAGAIN: return .timeout(bus: bus, address: address)
        case EACCES, EPERM: return .permissionDenied(bus: bus)
        case EINVAL, EOPNOTSUPP:
            return .invalidRequest(bus: bus, address: address, reason: "the adapter rejected the transaction (errno \(code))")
        default: return .system(bus: bus, address: address, errno: code)
        }
    }

    /// Errors of the I2C_SLAVE ioctl: EBUSY there means a kernel driver owns the address.
    static func selectError(_ code: Int32, bus: Int, address: UInt8) -> SensorBusError {
        code == EBUSY ? .addressClaimed(bus: bus, address: address) : error(code, bus: bus, address: address)
    }

    private func smbus(address: UInt8, _ body: (Int32) -> Int32) throws(SensorBusError) -> Int32 {
        let result: Result<Int32, SensorBusError> = selectedAddress.withLock { current in
            if current != address {
                let status = clh_i2c_set_address(fd, UInt16(address))
                if status < 0 { return .failure(Self.selectError(-status, bus: busNumber, address: address)) }
                current = address
            }
            let value = body(fd)
            return value < 0 ? .failure(Self.error(-value, bus: busNumber, address: address)) : .success(value)
        }
        return try result.get()
    }

    public func readByte(address: UInt8) throws(SensorBusError) -> UInt8 {
        UInt8(truncatingIfNeeded: try smbus(address: address) { clh_smbus_read_byte($0) })
    }

    public func writeByte(address: UInt8, value: UInt8) throws(SensorBusError) {
        _ = try smbus(address: address) { clh_smbus_write_byte($0, value) }
    }

    public func readByteData(address: UInt8, command: UInt8) throws(SensorBusError) -> UInt8 {
        UInt8(truncatingIfNeeded: try smbus(address: address) { clh_smbus_read_byte_data($0, command) })
    }

    public func writeByteData(address: UInt8, command: UInt8, value: UInt8) throws(SensorBusError) {
        _ = try smbus(address: address) { clh_smbus_write_byte_data($0, command, value) }
    }

    public func readWordData(address: UInt8, command: UInt8) throws(SensorBusError) -> UInt16 {
        UInt16(truncatingIfNeeded: try smbus(address: address) { clh_smbus_read_word_data($0, command) })
    }

    public func writeWordData(address: UInt8, command: UInt8, value: UInt16) throws(SensorBusError) {
        _ = try smbus(address: address) { clh_smbus_write_word_data($0, command, value) }
    }

    public func readBlockData(address: UInt8, command: UInt8) throws(SensorBusError) -> [UInt8] {
        // The kernel copies up to I2C_SMBUS_BLOCK_MAX bytes; leave headroom for its count byte.
        var buffer = [UInt8](repeating: 0, count: SMBusLimits.maxBlockLength + 2)
        let count = try buffer.withUnsafeMutableBufferPointer { pointer throws(SensorBusError) -> Int32 in
            try smbus(address: address) { clh_smbus_read_block_data($0, command, pointer.baseAddress) }
        }
        return Array(buffer.prefix(min(Int(count), SMBusLimits.maxBlockLength)))
    }

    public func writeBlockData(address: UInt8, command: UInt8, bytes: [UInt8]) throws(SensorBusError) {
        guard bytes.count <= SMBusLimits.maxBlockLength else {
            throw .invalidRequest(bus: busNumber, address: address, reason: "SMBus blocks carry at most 32 bytes, got \(bytes.count)")
        }
        _ = try bytes.withUnsafeBufferPointer { pointer throws(SensorBusError) -> Int32 in
            try smbus(address: address) { clh_smbus_write_block_data($0, command, UInt8(bytes.count), pointer.baseAddress) }
        }
    }

    public func readI2CBlockData(address: UInt8, command: UInt8, count: Int) throws(SensorBusError) -> [UInt8] {
        guard (1...SMBusLimits.maxBlockLength).contains(count) else {
            throw .invalidRequest(bus: busNumber, address: address, reason: "I2C block reads take 1...32 bytes, asked for \(count)")
        }
        var buffer = [UInt8](repeating: 0, count: SMBusLimits.maxBlockLength + 2)
        let received = try buffer.withUnsafeMutableBufferPointer { pointer throws(SensorBusError) -> Int32 in
            try smbus(address: address) { clh_smbus_read_i2c_block_data($0, command, UInt8(count), pointer.baseAddress) }
        }
        guard Int(received) == count else {
            throw .invalidRequest(bus: busNumber, address: address, reason: "asked for \(count) bytes, adapter returned \(received)")
        }
        return Array(buffer.prefix(count))
    }

    public func transfer(_ messages: [I2CMessage]) throws(SensorBusError) -> [[UInt8]] {
        guard let first = messages.first else { return [] }
        // Buffers must outlive the ioctl, so allocate them explicitly and free after.
        var buffers: [UnsafeMutableBufferPointer<UInt8>] = []
        defer { buffers.forEach { $0.deallocate() } }
        var raw: [i2c_msg] = []
        for message in messages {
            switch message {
            case let .write(address, bytes):
                guard bytes.count <= Int(UInt16.max) else {
                    throw .invalidRequest(bus: busNumber, address: address, reason: "message too long")
                }
                let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
                _ = buffer.initialize(from: bytes)
                buffers.append(buffer)
                raw.append(i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(bytes.count), buf: buffer.baseAddress))
            case let .read(address, count):
                guard count >= 0, count <= Int(UInt16.max) else {
                    throw .invalidRequest(bus: busNumber, address: address, reason: "read length \(count) out of range")
                }
                let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, 1))
                buffer.initialize(repeating: 0)
                buffers.append(buffer)
                raw.append(i2c_msg(addr: UInt16(address), flags: clh_i2c_m_rd(), len: UInt16(count), buf: buffer.baseAddress))
            }
        }
        // I2C_RDWR skips the check I2C_SLAVE makes, so a raw transfer would talk to a chip a kernel
        // driver owns (SHT31 bound by sht3x); selecting each address first gets the same EBUSY.
        let addresses = Set(messages.map(\.address)).sorted()
        let bus = busNumber
        let selection: Result<Void, SensorBusError> = selectedAddress.withLock { current in
            for address in addresses {
                let selected = clh_i2c_set_address(fd, UInt16(address))
                if selected < 0 {
                    current = nil
                    return .failure(Self.selectError(-selected, bus: bus, address: address))
                }
                current = address
            }
            return .success(())
        }
        try selection.get()
        // I2C_RDWR carries its addresses in the messages, so unlike the SMBus calls it does not need
        // the selection to stay put: the transfer (which may block for the adapter's timeout on a
        // stuck bus) runs outside the lock and other sensors on the bus are not held up.
        let code = raw.withUnsafeMutableBufferPointer { pointer in
            clh_i2c_rdwr(fd, pointer.baseAddress, UInt32(pointer.count))
        }
        if code < 0 { throw Self.error(-code, bus: busNumber, address: first.address) }
        var result: [[UInt8]] = []
        for (index, message) in messages.enumerated() {
            if case let .read(_, count) = message {
                result.append(Array(buffers[index].prefix(count)))
            }
        }
        return result
    }
}

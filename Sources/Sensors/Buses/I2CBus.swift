/// One segment of a combined I2C transfer; consecutive messages are joined by repeated starts.
public enum I2CMessage: Sendable, Equatable {
    case write(address: UInt8, bytes: [UInt8])
    case read(address: UInt8, count: Int)

    public var address: UInt8 {
        switch self {
        case let .write(address, _), let .read(address, _): return address
        }
    }
}

/// An I2C/SMBus adapter. SMBus words are little-endian on the wire (low byte first), as SMBus defines;
/// drivers of MSB-first chips swap themselves.
public protocol I2CBus: AnyObject, Sendable {
    /// The N of /dev/i2c-N, used in error messages.
    var busNumber: Int { get }

    func readByte(address: UInt8) throws(SensorBusError) -> UInt8
    func writeByte(address: UInt8, value: UInt8) throws(SensorBusError)
    func readByteData(address: UInt8, command: UInt8) throws(SensorBusError) -> UInt8
    func writeByteData(address: UInt8, command: UInt8, value: UInt8) throws(SensorBusError)
    func readWordData(address: UInt8, command: UInt8) throws(SensorBusError) -> UInt16
    func writeWordData(address: UInt8, command: UInt8, value: UInt16) throws(SensorBusError)
    /// SMBus block read: the device sends a count byte (1...32) followed by that many bytes.
    func readBlockData(address: UInt8, command: UInt8) throws(SensorBusError) -> [UInt8]
    /// SMBus block write: command, count byte, then up to 32 bytes.
    func writeBlockData(address: UInt8, command: UInt8, bytes: [UInt8]) throws(SensorBusError)
    /// I2C block read of `count` (1...32) consecutive registers without a count byte.
    func readI2CBlockData(address: UInt8, command: UInt8, count: Int) throws(SensorBusError) -> [UInt8]
    /// Raw combined transfer (I2C_RDWR); returns the bytes of each read message in order.
    func transfer(_ messages: [I2CMessage]) throws(SensorBusError) -> [[UInt8]]
}

/// SMBus limits shared by the Linux and simulated buses.
enum SMBusLimits {
    static let maxBlockLength = 32
}

extension I2CBus {
    /// Reads a 16-bit register sent MSB first (TMP102, MCP9808, MAX17048).
    public func readBigEndianWord(address: UInt8, command: UInt8) throws(SensorBusError) -> UInt16 {
        (try readWordData(address: address, command: command)).byteSwapped
    }

    /// Writes a 16-bit register the chip expects MSB first.
    public func writeBigEndianWord(address: UInt8, command: UInt8, value: UInt16) throws(SensorBusError) {
        try writeWordData(address: address, command: command, value: value.byteSwapped)
    }

    /// Write then read with a repeated start, the usual "set pointer, read N bytes" pattern.
    public func writeRead(address: UInt8, write bytes: [UInt8], readCount: Int) throws(SensorBusError) -> [UInt8] {
        let result = try transfer([.write(address: address, bytes: bytes), .read(address: address, count: readCount)])
        return result.first ?? []
    }

    /// Reads `count` bytes without a preceding write (sensors whose command was sent earlier).
    public func read(address: UInt8, count: Int) throws(SensorBusError) -> [UInt8] {
        (try transfer([.read(address: address, count: count)])).first ?? []
    }

    public func write(address: UInt8, bytes: [UInt8]) throws(SensorBusError) {
        _ = try transfer([.write(address: address, bytes: bytes)])
    }
}

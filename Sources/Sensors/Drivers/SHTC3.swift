/// Sensirion SHTC3 humidity/temperature sensor (0x70). It sleeps between reads: wake, measure, sleep.
public final class SHTC3: Sendable {
    /// Datasheet 5.3 (Table 9 to 11): 16-bit commands.
    public enum Command: UInt16, Sendable {
        case wakeup = 0x3517
        case sleep = 0xB098
        /// Normal mode, temperature first, no clock stretching: the chip NACKs reads until done.
        case measureTemperatureFirst = 0x7866
        case readID = 0xEFC8
        case softReset = 0x805D
    }

    /// Datasheet Table 5: wake-up takes at most 240 µs, a normal-mode measurement at most 12.1 ms.
    static let wakeupMilliseconds = 0.24
    static let maxMeasurementMilliseconds = 12.1
    /// Datasheet 5.9: bits 11 and 5:0 of the ID register are 1 and 000111 on every SHTC3.
    static let idMask: UInt16 = 0x083F
    static let idPattern: UInt16 = 0x0807

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock

    /// The chip's only address.
    public static let defaultAddress: UInt8 = 0x70

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.clock = clock
    }

    func send(_ command: Command) throws(SensorError) {
        do {
            try bus.write(address: address, bytes: [UInt8(command.rawValue >> 8), UInt8(truncatingIfNeeded: command.rawValue)])
        } catch { throw .bus(error) }
    }

    private func receive(words: Int) throws(SensorError) -> [UInt16] {
        let bytes: [UInt8]
        do { bytes = try bus.read(address: address, count: words * 3) } catch { throw .bus(error) }
        return try SensirionWords.decode(bytes, words: words, sensor: "SHTC3")
    }

    private func wake() throws(SensorError) {
        try send(.wakeup)
        clock.sleep(milliseconds: Self.wakeupMilliseconds)
    }

    /// Reads the ID register so an SHT3x or another chip at 0x70 is not read as an SHTC3.
    public func verifyIdentity() throws(SensorError) {
        try wake()
        try send(.readID)
        let id = try receive(words: 1)[0]
        guard id & Self.idMask == Self.idPattern else {
            throw .wrongChip(sensor: "SHTC3", expected: "ID with bits 11 and 5:0 = 1 and 000111",
                             found: "ID 0x" + String(id, radix: 16))
        }
        try send(.sleep)
    }

    public func read() throws(SensorError) -> TemperatureHumidityReading {
        try wake()
        try send(.measureTemperatureFirst)
        clock.sleep(milliseconds: Self.maxMeasurementMilliseconds)
        let words = try receive(words: 2)
        // Sleeping between reads keeps the self-heating down (and the supply current at 0.3 µA).
        try send(.sleep)
        return TemperatureHumidityReading(celsius: Self.celsius(words[0]), relativeHumidity: Self.humidity(words[1]))
    }

    /// Datasheet 5.11: the SHTC3 divides by 2^16 (the SHT3x by 2^16 − 1).
    public static func celsius(_ raw: UInt16) -> Double { -45 + 175 * Double(raw) / 65536 }
    public static func humidity(_ raw: UInt16) -> Double { 100 * Double(raw) / 65536 }
}

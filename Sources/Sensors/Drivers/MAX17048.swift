/// Maxim MAX17048 single-cell fuel gauge (0x36).
public final class MAX17048: Sendable {
    public enum Register: UInt8 {
        case vcell = 0x02
        case soc = 0x04
        case mode = 0x06
        case version = 0x08
        case hibernate = 0x0A
        case config = 0x0C
        case crate = 0x16
        case status = 0x1A
    }

    public let bus: any I2CBus
    public let address: UInt8

    /// The 7-bit address the chip answers on when its address pins are left at their default.
    public static let defaultAddress: UInt8 = 0x36

    public init(bus: any I2CBus, address: UInt8 = defaultAddress) {
        self.bus = bus
        self.address = address
    }

    /// Production parts report 0x001x; anything else at 0x36 is another chip.
    public func readVersion() throws(SensorError) -> UInt16 {
        let version: UInt16
        do { version = try bus.readBigEndianWord(address: address, command: Register.version.rawValue) } catch { throw .bus(error) }
        guard version & 0xFFF0 == 0x0010 else {
            throw .wrongChip(sensor: "MAX17048", expected: "version 0x001x", found: "version 0x" + String(version, radix: 16))
        }
        return version
    }

    public func read() throws(SensorError) -> BatteryReading {
        _ = try readVersion()
        let vcell: UInt16, soc: UInt16, crate: UInt16
        do {
            vcell = try bus.readBigEndianWord(address: address, command: Register.vcell.rawValue)
            soc = try bus.readBigEndianWord(address: address, command: Register.soc.rawValue)
            crate = try bus.readBigEndianWord(address: address, command: Register.crate.rawValue)
        } catch { throw .bus(error) }
        let volts = Self.volts(vcell: vcell)
        // Below ~1 V the cell is absent: the gauge then reports noise, not a charge level.
        guard volts >= 1.0 else {
            throw .noSignal(sensor: "MAX17048", reason: "cell voltage \(volts) V: no battery connected")
        }
        return BatteryReading(cellVolts: volts, stateOfChargePercent: Self.percent(soc: soc),
                              chargeRatePercentPerHour: Double(Int16(bitPattern: crate)) * 0.208)
    }

    /// VCELL: 78.125 µV per LSB.
    public static func volts(vcell: UInt16) -> Double { Double(vcell) * 78.125e-6 }
    /// SOC: high byte is percent, low byte 1/256 %.
    public static func percent(soc: UInt16) -> Double { Double(soc) / 256 }
}

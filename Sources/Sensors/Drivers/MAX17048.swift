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

    /// STATUS bit 8 (RI, reset indicator): set when the chip powers up or resets and its
    /// configuration is back at defaults; cleared by the host (datasheet register summary, STATUS).
    static let resetIndicator: UInt16 = 0x0100

    /// What to tell the user when `BatteryReading.resetDetected` is set.
    public static let resetNotice = "the fuel gauge reset (power-up or brown-out); its state of charge restarted from the cell voltage and may jump"

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

    /// Reads voltage, charge and rate. When STATUS.RI shows the chip reset, the reading says so and
    /// RI is cleared: this driver keeps the chip's power-on configuration, so there is nothing to
    /// write back first, and clearing it lets the next reset be seen.
    public func read() throws(SensorError) -> BatteryReading {
        _ = try readVersion()
        let vcell: UInt16, soc: UInt16, crate: UInt16, status: UInt16
        do {
            status = try bus.readBigEndianWord(address: address, command: Register.status.rawValue)
            vcell = try bus.readBigEndianWord(address: address, command: Register.vcell.rawValue)
            soc = try bus.readBigEndianWord(address: address, command: Register.soc.rawValue)
            crate = try bus.readBigEndianWord(address: address, command: Register.crate.rawValue)
        } catch { throw .bus(error) }
        let reset = status & Self.resetIndicator != 0
        if reset {
            do {
                try bus.writeBigEndianWord(address: address, command: Register.status.rawValue, value: status & ~Self.resetIndicator)
            } catch { throw .bus(error) }
        }
        let volts = Self.volts(vcell: vcell)
        // Below ~1 V the cell is absent: the gauge then reports noise, not a charge level.
        guard volts >= 1.0 else {
            throw .noSignal(sensor: "MAX17048", cause: .noBattery(volts: volts))
        }
        // SOC can read above 100 % (up to 255.996 %) near full: a level is 0...100.
        return BatteryReading(cellVolts: volts, stateOfChargePercent: min(100, Self.percent(soc: soc)),
                              chargeRatePercentPerHour: Double(Int16(bitPattern: crate)) * 0.208, resetDetected: reset)
    }

    /// VCELL: 78.125 µV per LSB.
    public static func volts(vcell: UInt16) -> Double { Double(vcell) * 78.125e-6 }
    /// SOC: high byte is percent, low byte 1/256 %.
    public static func percent(soc: UInt16) -> Double { Double(soc) / 256 }
}

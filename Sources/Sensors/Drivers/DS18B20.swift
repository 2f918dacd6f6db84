/// Maxim DS18B20 1-Wire thermometer through the kernel w1-therm driver.
public struct DS18B20: Sendable {
    public static let family = "28"

    public let bus: OneWireBus
    public let id: String

    public init(bus: OneWireBus = OneWireBus(), id: String) {
        self.bus = bus
        self.id = id
    }

    /// The first DS18B20 on the bus, for setups with a single probe.
    public static func first(on bus: OneWireBus = OneWireBus()) throws(SensorError) -> DS18B20 {
        let ids: [String]
        do { ids = try bus.devices(family: family) } catch { throw .oneWire(error) }
        guard let id = ids.first else { throw .oneWire(.noDevices(family: family, root: bus.root)) }
        return DS18B20(bus: bus, id: id)
    }

    public func read() throws(SensorError) -> TemperatureReading {
        let text: String
        do { text = try bus.read(id: id, attribute: "w1_slave") } catch { throw .oneWire(error) }
        return try Self.parse(w1Slave: text)
    }

    /// Parses w1_slave:
    ///   "72 01 4b 46 7f ff 0e 10 57 : crc=57 YES"
    ///   "72 01 4b 46 7f ff 0e 10 57 t=23125"
    /// Since Linux 5.9 w1_therm returns an empty file when the probe did not answer or every retry
    /// failed its CRC. The scratchpad bytes are checked again here, because a disconnected probe reads
    /// as all zeros, whose CRC is also zero and which the kernel therefore reports as YES.
    public static func parse(w1Slave text: String) throws(SensorError) -> TemperatureReading {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard !lines.isEmpty else {
            throw .noSignal(sensor: "DS18B20", cause: .probeSilent)
        }
        guard lines.count >= 2 else {
            throw .invalidData(sensor: "DS18B20", reason: "w1_slave has \(lines.count) line(s), expected 2")
        }
        let scratchpad = try scratchpadBytes(String(lines[0]))
        let computed = CRC8.maxim(scratchpad.prefix(8))
        // The received CRC is the scratchpad's 9th byte; the kernel's crc= field repeats it.
        guard lines[0].hasSuffix("YES"), computed == scratchpad[8] else {
            throw .crcMismatch(sensor: "DS18B20", expected: computed, received: scratchpad[8])
        }
        guard scratchpad.contains(where: { $0 != 0 }) else {
            throw .noSignal(sensor: "DS18B20", cause: .probeUnpowered)
        }
        guard let tField = lines[1].split(separator: " ").first(where: { $0.hasPrefix("t=") }),
              let milli = Int(tField.dropFirst(2)) else {
            throw .invalidData(sensor: "DS18B20", reason: "no t= field in '\(lines[1])'")
        }
        let raw = Int16(bitPattern: UInt16(scratchpad[0]) | UInt16(scratchpad[1]) << 8)
        // 0x0550 (85 °C) with reserved byte 6 = 0x0C is the power-on scratchpad (datasheet figure 9,
        // the check w1_therm makes): the conversion never ran. A converted 85 °C has byte 6 = 0x10.
        if raw == 0x0550, scratchpad[6] == 0x0C {
            throw .invalidData(sensor: "DS18B20", reason: "85 °C power-on reset value: the conversion did not run; check power (avoid parasite mode)")
        }
        let celsius = Double(raw) / 16
        guard abs(celsius * 1000 - Double(milli)) < 1 else {
            throw .invalidData(sensor: "DS18B20", reason: "t=\(milli) disagrees with the scratchpad (\(celsius) °C)")
        }
        guard (-55...125).contains(celsius) else {
            throw .invalidData(sensor: "DS18B20", reason: "\(celsius) °C is outside the sensor's range")
        }
        return TemperatureReading(celsius: celsius)
    }

    private static func scratchpadBytes(_ line: String) throws(SensorError) -> [UInt8] {
        let fields = line.split(separator: " ").prefix(9)
        var bytes: [UInt8] = []
        for field in fields {
            guard field.count == 2, let byte = UInt8(field, radix: 16) else { break }
            bytes.append(byte)
        }
        guard bytes.count == 9 else {
            throw .invalidData(sensor: "DS18B20", reason: "expected 9 scratchpad bytes in '\(line)'")
        }
        return bytes
    }
}

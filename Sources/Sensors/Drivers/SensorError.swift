/// A driver-level failure. Drivers throw instead of returning a stale or implausible number.
public enum SensorError: Error, Equatable, Sendable, CustomStringConvertible {
    case bus(SensorBusError)
    case oneWire(OneWireError)
    case gpio(GPIOError)
    /// The chip answered but is not the part the driver expects (wrong address or wrong chip).
    case wrongChip(sensor: String, expected: String, found: String)
    /// A checksum sent by the chip did not match its data (noise, long wires, weak pull-ups).
    case crcMismatch(sensor: String, expected: UInt8, received: UInt8)
    /// The chip was still converting after the datasheet's maximum conversion time.
    case conversionTimeout(sensor: String, waitedMilliseconds: Double)
    /// The chip reset (brown-out or hot-plug) and lost its configuration.
    case deviceReset(sensor: String)
    /// The requested settings are not allowed by the datasheet; nothing was written to the chip.
    case unsupportedConfiguration(sensor: String, reason: String)
    /// The chip is in its low-power shutdown mode, so its result register holds an old conversion.
    case shutDown(sensor: String, bit: String)
    /// The chip reported a value that cannot be a measurement.
    case invalidData(sensor: String, reason: String)
    /// No usable signal: no finger on the sensor, no pulses on the line.
    case noSignal(sensor: String, reason: String)
    /// A sysfs sensor file is missing or unreadable.
    case unavailable(sensor: String, reason: String)
    /// The sensor is conditioning itself (an SHT4x heater pulse and the cool-down after it), so what it
    /// would read now is not ambient. Not a fault: readings resume by themselves.
    case conditioning(sensor: String, reason: String)

    public var description: String {
        switch self {
        case let .bus(error): return error.description
        case let .oneWire(error): return error.description
        case let .gpio(error): return error.description
        case let .wrongChip(sensor, expected, found):
            return "\(sensor): expected \(expected) but found \(found): check the --address and the sensor model"
        case let .crcMismatch(sensor, expected, received):
            return "\(sensor): CRC mismatch (computed \(expected.i2cHex), received \(received.i2cHex)): check wiring, pull-ups and cable length"
        case let .conversionTimeout(sensor, waited):
            return "\(sensor): still measuring after \(waited) ms: the chip may be hung; power-cycle it"
        case let .deviceReset(sensor):
            return "\(sensor): the chip reset and lost its configuration (power glitch?); it will be reconfigured"
        case let .unsupportedConfiguration(sensor, reason):
            return "\(sensor): unsupported configuration: \(reason)"
        case let .shutDown(sensor, bit):
            return "\(sensor): the chip is in shutdown mode (\(bit) bit set), so its temperature register holds an old conversion: "
                + "clear the bit (or power-cycle the chip) and read again"
        case let .invalidData(sensor, reason):
            return "\(sensor): invalid data: \(reason)"
        case let .noSignal(sensor, reason):
            return "\(sensor): no signal: \(reason)"
        case let .unavailable(sensor, reason):
            return "\(sensor): unavailable: \(reason)"
        case let .conditioning(sensor, reason):
            return "\(sensor): paused: \(reason)"
        }
    }
}

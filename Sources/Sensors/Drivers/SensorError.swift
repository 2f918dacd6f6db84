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
    /// No usable signal: the sensor answers but has nothing to measure (no pulses on the line, no
    /// beat under the finger, no battery on the gauge). A state, not a fault.
    case noSignal(sensor: String, cause: NoSignalCause)
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
        case let .noSignal(sensor, cause):
            return "\(sensor): no signal: \(cause)"
        case let .unavailable(sensor, reason):
            return "\(sensor): unavailable: \(reason)"
        case let .conditioning(sensor, reason):
            return "\(sensor): paused: \(reason)"
        }
    }
}

/// Why a sensor that answers has nothing to measure, so consumers (Pulse Oximeter status bits,
/// status, logs) decide on the cause rather than on message text.
public enum NoSignalCause: Sendable, Equatable, CustomStringConvertible {
    /// A PPG chip delivered no samples for `seconds` (it reset or was shut down).
    case noSamples(seconds: Double)
    /// A PPG chip's ambient light cancellation overflowed.
    case ambientLightOverflow
    /// A finger is on the PPG sensor but no beat was found for `seconds`.
    case noHeartbeat(seconds: Double)
    /// No pulse reached the GPIO line for `seconds`.
    case noPulse(seconds: Double)
    /// The fuel gauge measures `volts`: no cell is connected.
    case noBattery(volts: Double)
    /// The 1-Wire probe did not answer (an empty `w1_slave`).
    case probeSilent
    /// The 1-Wire probe's scratchpad reads all zeros: disconnected or unpowered.
    case probeUnpowered

    public var description: String {
        switch self {
        case let .noSamples(seconds):
            "no samples from the sensor for \(Self.seconds(seconds)): it stopped sampling (reset or shut down?); reconfigure it"
        case .ambientLightOverflow:
            "ambient light overflow: too much light reaches the sensor; shade it or cover it with the finger"
        case let .noHeartbeat(seconds):
            "no heartbeat found for \(Self.seconds(seconds)): keep the finger still and press lightly"
        case let .noPulse(seconds):
            "no pulse for \(Self.seconds(seconds)): check the receiver and the strap"
        case let .noBattery(volts):
            "cell voltage \(volts) V: no battery connected"
        case .probeSilent:
            "w1_slave is empty: the probe did not answer (or failed its CRC on every try); "
                + "check the wiring and the 4.7 kΩ pull-up between DQ and 3.3 V"
        case .probeUnpowered:
            "scratchpad reads all zeros: the probe is disconnected or unpowered"
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : "\(value) s"
    }
}

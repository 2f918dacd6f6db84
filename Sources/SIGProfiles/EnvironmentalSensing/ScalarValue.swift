/// The characteristic formats a Valid Range or ES Trigger Setting operand can take: descriptors
/// carry values "in the characteristic's format", so they need to know which characteristic they belong to.
public enum ScalarFormat: Hashable, Sendable, CaseIterable {
    case temperature
    case humidity
    case pressure
    case measurementInterval

    public init?(characteristic uuid: UInt16) {
        switch uuid {
        case ESTemperature.uuid: self = .temperature
        case Humidity.uuid: self = .humidity
        case Pressure.uuid: self = .pressure
        case MeasurementInterval.uuid: self = .measurementInterval
        default: return nil
        }
    }

    public var characteristicUUID: UInt16 {
        switch self {
        case .temperature: return ESTemperature.uuid
        case .humidity: return Humidity.uuid
        case .pressure: return Pressure.uuid
        case .measurementInterval: return MeasurementInterval.uuid
        }
    }

    public var byteCount: Int { self == .pressure ? 4 : 2 }

    func read(_ reader: inout FieldReader, field: String) throws(SIGDecodingError) -> ScalarValue {
        switch self {
        case .temperature: return .temperature(try ESTemperature(reading: &reader, field: field))
        case .humidity: return .humidity(try Humidity(reading: &reader, field: field))
        case .pressure: return .pressure(Pressure(rawValue: try reader.uint32(field)))
        case .measurementInterval: return .measurementInterval(MeasurementInterval(seconds: try reader.uint16(field)))
        }
    }
}

/// One value in a characteristic's own format.
public enum ScalarValue: Hashable, Sendable, CustomStringConvertible {
    case temperature(ESTemperature)
    case humidity(Humidity)
    case pressure(Pressure)
    case measurementInterval(MeasurementInterval)

    public var format: ScalarFormat {
        switch self {
        case .temperature: return .temperature
        case .humidity: return .humidity
        case .pressure: return .pressure
        case .measurementInterval: return .measurementInterval
        }
    }

    public var encoded: [UInt8] {
        switch self {
        case let .temperature(value): return value.encoded
        case let .humidity(value): return value.encoded
        case let .pressure(value): return value.encoded
        case let .measurementInterval(value): return value.encoded
        }
    }

    /// The number for ordering checks; `nil` for "value not known".
    public var number: Double? {
        switch self {
        case let .temperature(value): return value.celsius
        case let .humidity(value): return value.percent
        case let .pressure(value): return value.pascals
        case let .measurementInterval(value): return Double(value.seconds)
        }
    }

    public var description: String {
        switch self {
        case let .temperature(value): return value.text
        case let .humidity(value): return value.text
        case let .pressure(value): return value.text
        case let .measurementInterval(value): return "\(value.seconds) s"
        }
    }

    var json: JSONValue {
        switch self {
        case let .temperature(value): return value.json
        case let .humidity(value): return value.json
        case let .pressure(value): return .double(value.pascals)
        case let .measurementInterval(value): return .int(Int(value.seconds))
        }
    }

    /// The JSON key suffix naming the unit, so keys say what the number means.
    var unitKey: String {
        switch format {
        case .temperature: return "c"
        case .humidity: return "percent"
        case .pressure: return "pa"
        case .measurementInterval: return "s"
        }
    }
}

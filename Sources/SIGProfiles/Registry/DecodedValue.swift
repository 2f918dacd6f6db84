/// A decoded SIG characteristic or descriptor value, whatever its UUID.
public enum DecodedValue: Hashable, Sendable {
    case heartRateMeasurement(HeartRateMeasurement)
    case bodySensorLocation(BodySensorLocation)
    case heartRateControlPoint(HeartRateControlPointCommand)
    case temperatureMeasurement(TemperatureMeasurement)
    case intermediateTemperature(TemperatureMeasurement)
    case temperatureType(TemperatureType)
    case measurementInterval(MeasurementInterval)
    case temperature(ESTemperature)
    case humidity(Humidity)
    case pressure(Pressure)
    case batteryLevel(BatteryLevel)
    case deviceInformation(DeviceInformationString)
    case pnpID(PnPID)
    case plxSpotCheckMeasurement(PLXSpotCheckMeasurement)
    case plxContinuousMeasurement(PLXContinuousMeasurement)
    case plxFeatures(PLXFeatures)
    case validRange(ValidRange)
    case esMeasurement(ESMeasurementDescriptor)
    case esTriggerSetting(ESTriggerSetting)
    case esConfiguration(ESConfiguration)
    case presentationFormat(PresentationFormat)

    public var attribute: SIGAttribute {
        switch self {
        case .heartRateMeasurement: return .heartRateMeasurement
        case .bodySensorLocation: return .bodySensorLocation
        case .heartRateControlPoint: return .heartRateControlPoint
        case .temperatureMeasurement: return .temperatureMeasurement
        case .intermediateTemperature: return .intermediateTemperature
        case .temperatureType: return .temperatureType
        case .measurementInterval: return .measurementInterval
        case .temperature: return .temperature
        case .humidity: return .humidity
        case .pressure: return .pressure
        case .batteryLevel: return .batteryLevel
        case let .deviceInformation(value): return SIGAttribute(rawValue: value.kind.rawValue) ?? .manufacturerName
        case .pnpID: return .pnpID
        case .plxSpotCheckMeasurement: return .plxSpotCheckMeasurement
        case .plxContinuousMeasurement: return .plxContinuousMeasurement
        case .plxFeatures: return .plxFeatures
        case .validRange: return .validRange
        case .esMeasurement: return .esMeasurement
        case .esTriggerSetting: return .esTriggerSetting
        case .esConfiguration: return .esConfiguration
        case .presentationFormat: return .presentationFormat
        }
    }

    public var content: any DescribableValue {
        switch self {
        case let .heartRateMeasurement(value): return value
        case let .bodySensorLocation(value): return value
        case let .heartRateControlPoint(value): return value
        case let .temperatureMeasurement(value), let .intermediateTemperature(value): return value
        case let .temperatureType(value): return value
        case let .measurementInterval(value): return value
        case let .temperature(value): return value
        case let .humidity(value): return value
        case let .pressure(value): return value
        case let .batteryLevel(value): return value
        case let .deviceInformation(value): return value
        case let .pnpID(value): return value
        case let .plxSpotCheckMeasurement(value): return value
        case let .plxContinuousMeasurement(value): return value
        case let .plxFeatures(value): return value
        case let .validRange(value): return value
        case let .esMeasurement(value): return value
        case let .esTriggerSetting(value): return value
        case let .esConfiguration(value): return value
        case let .presentationFormat(value): return value
        }
    }

    public var fields: [DescribedField] { content.fields }
}

extension DecodedValue: CustomStringConvertible {
    /// A title line with name and UUID, then one indented "Label: value unit" line per field.
    public var description: String {
        let title = "\(attribute.name) (\(hex(UInt64(attribute.rawValue), digits: 4)))"
        return ([title] + fields.map { "  \($0.label): \($0.text)" }).joined(separator: "\n")
    }

    /// `{"name": snake_case name, "uuid": "0x2A37", "value": {field keys…}}`.
    public var json: JSONValue {
        var value: [String: JSONValue] = [:]
        for field in fields { value[field.key] = field.json }
        return .object([
            "name": .string(snakeName(attribute.name)),
            "uuid": .string(hex(UInt64(attribute.rawValue), digits: 4)),
            "value": .object(value),
        ])
    }
}

/// Every characteristic and descriptor this module decodes, by 16-bit UUID.
public enum SIGAttribute: UInt16, Hashable, Sendable, CaseIterable {
    case heartRateMeasurement = 0x2A37
    case bodySensorLocation = 0x2A38
    case heartRateControlPoint = 0x2A39
    case temperatureMeasurement = 0x2A1C
    case temperatureType = 0x2A1D
    case intermediateTemperature = 0x2A1E
    case measurementInterval = 0x2A21
    case temperature = 0x2A6E
    case humidity = 0x2A6F
    case pressure = 0x2A6D
    case batteryLevel = 0x2A19
    case manufacturerName = 0x2A29
    case modelNumber = 0x2A24
    case serialNumber = 0x2A25
    case hardwareRevision = 0x2A27
    case firmwareRevision = 0x2A26
    case softwareRevision = 0x2A28
    case pnpID = 0x2A50
    case plxSpotCheckMeasurement = 0x2A5E
    case plxContinuousMeasurement = 0x2A5F
    case plxFeatures = 0x2A60
    case validRange = 0x2906
    case esMeasurement = 0x290C
    case esTriggerSetting = 0x290D
    case esConfiguration = 0x290B
    case presentationFormat = 0x2904

    public var name: String {
        switch self {
        case .heartRateMeasurement: return "Heart Rate Measurement"
        case .bodySensorLocation: return "Body Sensor Location"
        case .heartRateControlPoint: return "Heart Rate Control Point"
        case .temperatureMeasurement: return "Temperature Measurement"
        case .temperatureType: return "Temperature Type"
        case .intermediateTemperature: return "Intermediate Temperature"
        case .measurementInterval: return "Measurement Interval"
        case .temperature: return "Temperature"
        case .humidity: return "Humidity"
        case .pressure: return "Pressure"
        case .batteryLevel: return "Battery Level"
        case .manufacturerName: return "Manufacturer Name String"
        case .modelNumber: return "Model Number String"
        case .serialNumber: return "Serial Number String"
        case .hardwareRevision: return "Hardware Revision String"
        case .firmwareRevision: return "Firmware Revision String"
        case .softwareRevision: return "Software Revision String"
        case .pnpID: return "PnP ID"
        case .plxSpotCheckMeasurement: return "PLX Spot-check Measurement"
        case .plxContinuousMeasurement: return "PLX Continuous Measurement"
        case .plxFeatures: return "PLX Features"
        case .validRange: return "Valid Range"
        case .esMeasurement: return "ES Measurement"
        case .esTriggerSetting: return "ES Trigger Setting"
        case .esConfiguration: return "ES Configuration"
        case .presentationFormat: return "Characteristic Presentation Format"
        }
    }

    /// Descriptors whose value format is that of their characteristic.
    public var needsCharacteristicContext: Bool { self == .validRange || self == .esTriggerSetting }

    /// "0x2A37 Heart Rate Measurement" for every supported UUID, for error messages and help.
    public static var supportedList: [String] {
        allCases.map { "\(hex(UInt64($0.rawValue), digits: 4)) \($0.name)" }
    }

    /// The characteristics a context-dependent descriptor can belong to.
    public static var contextList: [String] {
        ScalarFormat.allCases.map { format in
            let uuid = format.characteristicUUID
            return "\(hex(UInt64(uuid), digits: 4)) \(SIGAttribute(rawValue: uuid)?.name ?? "")"
        }
    }
}

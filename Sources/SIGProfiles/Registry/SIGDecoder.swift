import BLECore

/// Decodes any supported characteristic or descriptor value by UUID.
public enum SIGDecoder {
    /// `characteristic` is needed only for descriptors whose format is their characteristic's
    /// (Valid Range 0x2906, ES Trigger Setting 0x290D).
    public static func decode(uuid: BluetoothUUID, bytes: [UInt8],
                              characteristic: BluetoothUUID? = nil) throws(SIGDecodingError) -> DecodedValue {
        guard let short = uuid.uint16, let attribute = SIGAttribute(rawValue: short) else {
            throw .unsupportedUUID(uuid: uuid.description, supported: SIGAttribute.supportedList)
        }
        switch attribute {
        case .heartRateMeasurement: return .heartRateMeasurement(try HeartRateMeasurement(decoding: bytes))
        case .bodySensorLocation: return .bodySensorLocation(try BodySensorLocation(decoding: bytes))
        case .heartRateControlPoint:
            switch HeartRateControlPointCommand.parse(bytes) {
            case let .success(command): return .heartRateControlPoint(command)
            case let .failure(error): throw .controlPointRejected(error)
            }
        case .temperatureMeasurement: return .temperatureMeasurement(try TemperatureMeasurement(decoding: bytes))
        case .intermediateTemperature: return .intermediateTemperature(try TemperatureMeasurement(decoding: bytes))
        case .temperatureType: return .temperatureType(try TemperatureType(decoding: bytes))
        case .measurementInterval: return .measurementInterval(try MeasurementInterval(decoding: bytes))
        case .temperature: return .temperature(try ESTemperature(decoding: bytes))
        case .humidity: return .humidity(try Humidity(decoding: bytes))
        case .pressure: return .pressure(try Pressure(decoding: bytes))
        case .batteryLevel: return .batteryLevel(try BatteryLevel(decoding: bytes))
        case .manufacturerName, .modelNumber, .serialNumber, .hardwareRevision, .firmwareRevision, .softwareRevision:
            let kind = DeviceInformationString.Kind(rawValue: attribute.rawValue) ?? .manufacturerName
            return .deviceInformation(try DeviceInformationString(kind: kind, decoding: bytes))
        case .pnpID: return .pnpID(try PnPID(decoding: bytes))
        case .plxSpotCheckMeasurement: return .plxSpotCheckMeasurement(try PLXSpotCheckMeasurement(decoding: bytes))
        case .plxContinuousMeasurement: return .plxContinuousMeasurement(try PLXContinuousMeasurement(decoding: bytes))
        case .plxFeatures: return .plxFeatures(try PLXFeatures(decoding: bytes))
        case .validRange:
            return .validRange(try ValidRange(decoding: bytes, format: try format(for: attribute, characteristic)))
        case .esTriggerSetting:
            return .esTriggerSetting(try ESTriggerSetting(decoding: bytes, format: try format(for: attribute, characteristic)))
        case .esMeasurement: return .esMeasurement(try ESMeasurementDescriptor(decoding: bytes))
        case .esConfiguration: return .esConfiguration(try ESConfiguration(decoding: bytes))
        case .presentationFormat: return .presentationFormat(try PresentationFormat(decoding: bytes))
        }
    }

    private static func format(for descriptor: SIGAttribute,
                               _ characteristic: BluetoothUUID?) throws(SIGDecodingError) -> ScalarFormat {
        let name = "\(descriptor.name) (\(hex(UInt64(descriptor.rawValue), digits: 4)))"
        guard let characteristic else {
            throw .characteristicContextRequired(descriptor: name, supported: SIGAttribute.contextList)
        }
        // Measurement Interval has no ES Trigger Setting; only ESS characteristics do.
        guard let short = characteristic.uint16, let format = ScalarFormat(characteristic: short),
              descriptor == .validRange || format != .measurementInterval else {
            let supported = SIGAttribute.contextList.filter { descriptor == .validRange || !$0.hasPrefix("0x2A21") }
            throw .unsupportedContext(descriptor: name, characteristic: characteristic.description, supported: supported)
        }
        return format
    }
}

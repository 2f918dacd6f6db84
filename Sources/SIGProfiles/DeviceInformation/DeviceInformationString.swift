/// The text characteristics of the Device Information Service (3.2-3.7): UTF-8, no terminator.
public struct DeviceInformationString: Hashable, Sendable {
    public enum Kind: UInt16, Hashable, Sendable, CaseIterable {
        case manufacturerName = 0x2A29
        case modelNumber = 0x2A24
        case serialNumber = 0x2A25
        case hardwareRevision = 0x2A27
        case firmwareRevision = 0x2A26
        case softwareRevision = 0x2A28

        public var name: String {
            switch self {
            case .manufacturerName: return "Manufacturer Name String"
            case .modelNumber: return "Model Number String"
            case .serialNumber: return "Serial Number String"
            case .hardwareRevision: return "Hardware Revision String"
            case .firmwareRevision: return "Firmware Revision String"
            case .softwareRevision: return "Software Revision String"
            }
        }

        var key: String {
            switch self {
            case .manufacturerName: return "manufacturer_name"
            case .modelNumber: return "model_number"
            case .serialNumber: return "serial_number"
            case .hardwareRevision: return "hardware_revision"
            case .firmwareRevision: return "firmware_revision"
            case .softwareRevision: return "software_revision"
            }
        }
    }

    /// The longest attribute value ATT allows (Core spec Vol 3 Part F 3.2.9).
    public static let maximumLength = 512

    public let kind: Kind
    public let text: String

    public init(kind: Kind, text: String) throws(SIGEncodingError) {
        guard text.utf8.count <= Self.maximumLength else {
            throw .outOfRange(field: kind.name, value: "\(text.utf8.count) bytes", allowed: "at most 512 bytes")
        }
        self.kind = kind
        self.text = text
    }

    /// Trailing NULs are dropped: the format has no terminator, but some firmware sends C strings whole.
    public init(kind: Kind, decoding bytes: [UInt8]) throws(SIGDecodingError) {
        guard bytes.count <= Self.maximumLength else {
            throw .outOfRange(field: kind.name, value: "\(bytes.count) bytes", allowed: "at most 512 bytes")
        }
        var body = bytes[...]
        while body.last == 0 { body = body.dropLast() }
        guard let text = String(validating: body, as: UTF8.self) else { throw .invalidUTF8(value: kind.name) }
        self.kind = kind
        self.text = text
    }

    public var encoded: [UInt8] { Array(text.utf8) }
}

extension DeviceInformationString: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField(kind.key, kind.name, "\"\(text)\"", .string(text))]
    }
}

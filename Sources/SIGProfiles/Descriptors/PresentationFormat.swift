import BLECore

/// Characteristic Presentation Format descriptor 0x2904 (Core spec Vol 3 Part G 3.3.3.5), 7 bytes:
/// format u8, exponent i8, unit u16 (a 0x27xx unit UUID), namespace u8, description u16.
public struct PresentationFormat: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2904
    public static let byteCount = 7
    /// The only assigned namespace.
    public static let bluetoothSIGNamespace: UInt8 = 0x01

    /// Format codes 0x01-0x1B (Assigned Numbers 2.4.1); others are reserved.
    static let formatNames = [
        "boolean", "2bit", "nibble", "uint8", "uint12", "uint16", "uint24", "uint32", "uint48", "uint64",
        "uint128", "sint8", "sint12", "sint16", "sint24", "sint32", "sint48", "sint64", "sint128", "float32",
        "float64", "SFLOAT", "FLOAT", "duint16", "utf8s", "utf16s", "struct",
    ]

    /// The units this project's sensors use (Assigned Numbers, units).
    static let unitNames: [UInt16: String] = [
        0x2700: "unitless", 0x2703: "second", 0x2724: "pascal", 0x272F: "degree Celsius",
        0x27AC: "degree Fahrenheit", 0x27AD: "percentage",
    ]

    public var format: UInt8
    /// The value is `characteristic value × 10^exponent`.
    public var exponent: Int8
    public var unit: UInt16
    public var namespace: UInt8
    public var descriptionCode: UInt16

    public init(format: UInt8, exponent: Int8, unit: UInt16, namespace: UInt8 = bluetoothSIGNamespace,
                descriptionCode: UInt16 = 0) {
        self.format = format
        self.exponent = exponent
        self.unit = unit
        self.namespace = namespace
        self.descriptionCode = descriptionCode
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, Self.byteCount, value: "Characteristic Presentation Format descriptor")
        var reader = FieldReader(bytes)
        format = try reader.uint8("format")
        guard format >= 1, Int(format) <= Self.formatNames.count else {
            throw .reservedValue(field: "format", value: hex(UInt64(format), digits: 2), allowed: "0x01-0x1B")
        }
        exponent = try reader.int8("exponent")
        unit = try reader.uint16("unit")
        namespace = try reader.uint8("namespace")
        descriptionCode = try reader.uint16("description")
    }

    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: Self.byteCount)
        writer.append(format)
        writer.append(exponent)
        writer.append(unit)
        writer.append(namespace)
        writer.append(descriptionCode)
        return writer.bytes
    }

    public var formatName: String {
        format >= 1 && Int(format) <= Self.formatNames.count ? Self.formatNames[Int(format) - 1] : "reserved"
    }

    public var unitName: String? { Self.unitNames[unit] }
}

extension PresentationFormat: DescribableValue {
    public var fields: [DescribedField] {
        let unitText = hex(UInt64(unit), digits: 4) + (unitName.map { " (\($0))" } ?? "")
        let namespaceText = namespace == Self.bluetoothSIGNamespace ? "Bluetooth SIG (0x01)" : hex(UInt64(namespace), digits: 2)
        return [
            DescribedField("format", "Format", "\(formatName) (\(hex(UInt64(format), digits: 2)))", .string(formatName)),
            DescribedField("exponent", "Exponent", "\(exponent)", .int(Int(exponent))),
            DescribedField("unit", "Unit", unitText, .string(hex(UInt64(unit), digits: 4))),
            DescribedField("unit_name", "Unit name", unitName ?? "not known to blesensor",
                           unitName.map { .string($0) } ?? .null),
            DescribedField("namespace", "Namespace", namespaceText, .int(Int(namespace))),
            DescribedField("description", "Description", hex(UInt64(descriptionCode), digits: 4),
                           .string(hex(UInt64(descriptionCode), digits: 4))),
        ]
    }
}

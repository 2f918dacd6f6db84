import BLECore
import GATT
import SIGProfiles

/// How the central's users see attributes: names and one-line value texts (the demo central's log
/// and the `blesensor` central commands), kept stable for grep.
public enum AttributeText {
    /// SIGProfiles names characteristics and descriptors only; services and the GAP/GATT core
    /// attributes every server has are named here.
    private static let names: [UInt16: String] = [
        0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x1809: "Health Thermometer",
        0x180A: "Device Information", 0x180D: "Heart Rate", 0x180F: "Battery", 0x181A: "Environmental Sensing",
        0x2A00: "Device Name", 0x2A01: "Appearance", 0x2A04: "Peripheral Preferred Connection Parameters",
        0x2A05: "Service Changed", 0x2B29: "Client Supported Features", 0x2B2A: "Database Hash",
        0x2B3A: "Server Supported Features", 0x2900: "Characteristic Extended Properties",
        0x2901: "Characteristic User Description", 0x2902: "Client Characteristic Configuration",
    ]

    /// UTF-8 values the SIG decoder does not cover.
    private static let textUUIDs: Set<UInt16> = [0x2A00, 0x2901]

    public static func name(of uuid: BluetoothUUID) -> String? {
        guard let short = uuid.uint16 else { return nil }
        return SIGAttribute(rawValue: short)?.name ?? names[short]
    }

    /// "2A37 Heart Rate Measurement", or the bare UUID when it has no name.
    public static func label(_ uuid: BluetoothUUID) -> String {
        name(of: uuid).map { "\(uuid) \($0)" } ?? uuid.description
    }

    /// The value on one line: decoded fields "Label: text" joined by "; ", quoted text, or hex.
    public static func value(_ bytes: [UInt8], of uuid: BluetoothUUID, characteristic: BluetoothUUID? = nil) -> String {
        guard let short = uuid.uint16 else { return hex(bytes) }
        if textUUIDs.contains(short) {
            return String(validating: bytes, as: UTF8.self).map { "\"\($0)\"" } ?? "\(hex(bytes)) (not UTF-8)"
        }
        guard SIGAttribute(rawValue: short) != nil else { return hex(bytes) }
        do {
            let decoded = try SIGDecoder.decode(uuid: uuid, bytes: bytes, characteristic: characteristic)
            // Absent optional fields only lengthen the line.
            let fields = decoded.fields.filter { $0.text != "not present" && $0.text != "none" }
            // A label repeating the attribute's name ("Manufacturer Name String") adds nothing to the line.
            return fields.map { $0.label == decoded.attribute.name ? $0.text : "\($0.label): \($0.text)" }.joined(separator: "; ")
        } catch {
            return "\(hex(bytes)) (undecodable: \(error))"
        }
    }

    public static func properties(_ properties: CharacteristicProperties) -> String {
        let text = propertyNames(properties).joined(separator: ", ")
        return text.isEmpty ? "no properties" : text
    }

    /// "read", "write without response", … in the order of the property bits.
    public static func propertyNames(_ properties: CharacteristicProperties) -> [String] {
        let named: [(CharacteristicProperties, String)] = [
            (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write without response"),
            (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
            (.authenticatedSignedWrites, "signed write"), (.extendedProperties, "extended properties"),
        ]
        return named.filter { properties.contains($0.0) }.map(\.1)
    }

    /// The decoded value when the UUID is one we decode (SIG characteristics and descriptors, UTF-8
    /// names); nil otherwise, where only the bytes mean something.
    public static func decodedValue(_ bytes: [UInt8], of uuid: BluetoothUUID, characteristic: BluetoothUUID? = nil) -> String? {
        guard let short = uuid.uint16, textUUIDs.contains(short) || SIGAttribute(rawValue: short) != nil else { return nil }
        return value(bytes, of: uuid, characteristic: characteristic)
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.isEmpty ? "(empty)" : "0x" + bytes.hexString
    }
}

import BLECore
import Central
import Foundation
import GAP

/// Output of the central commands: JSON lines for programs, text for people; each line flushed at
/// once so a reader sees it as it happens.
enum CentralOutput {
    /// 16-bit SIG UUIDs as 4 hex digits, 32-bit ones as 8, others in the canonical 36-character form.
    static func uuid(_ uuid: BluetoothUUID) -> String {
        if uuid.uint16 == nil, let value = uuid.uint32 {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: 8 - digits.count) + digits
        }
        return uuid.description
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.hexString }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((printable(text) + "\n").utf8))
    }

    /// Text from the air (names, UTF-8 values) without control characters: an advertiser must not
    /// be able to send escape sequences to the engineer's terminal.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var cleaned = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { cleaned.append(isControl(scalar) ? "\u{FFFD}" : scalar) }
        return String(cleaned)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// One JSON object on one line, keys sorted so lines compare as text.
    static func json(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// A flat JSON object of strings and integers on one line, keys sorted, written without
    /// Foundation's JSONSerialization: `subscribe` prints one per notification, and going through
    /// NSDictionary cost four times what receiving the notification did.
    static func flatJSON(_ fields: [(key: String, value: FlatJSONValue)]) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(UInt8(ascii: "{"))
        for (index, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            appendQuoted(field.key, to: &line)
            line.append(UInt8(ascii: ":"))
            switch field.value {
            case let .string(text): appendQuoted(text, to: &line)
            case let .int(value): line.append(contentsOf: String(value).utf8)
            }
        }
        line.append(contentsOf: "}\n".utf8)
        FileHandle.standardOutput.write(Data(line))
    }

    enum FlatJSONValue {
        case string(String)
        case int(Int)
    }

    /// A JSON string literal (RFC 8259 section 7) in UTF-8: quotes, backslashes and control
    /// characters escaped, every other byte as it is (multi-byte UTF-8 never contains these bytes).
    static func appendQuoted(_ text: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                line.append(UInt8(ascii: "\\"))
                line.append(byte)
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                line.append(contentsOf: "\\u00".utf8)
                line.append(hex[Int(byte >> 4)])
                line.append(hex[Int(byte & 0x0F)])
            default:
                line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    static func addressType(_ address: DeviceAddress) -> String {
        switch address.type {
        case .publicDevice, .publicIdentity: return "public"
        case .randomDevice, .randomIdentity: return "random"
        }
    }

    /// A discovery as the `scan --json` contract spells it; absent values are left out.
    static func discoveryObject(_ report: Discovery) -> [String: Any] {
        let data = report.advertisement
        var object: [String: Any] = [
            "address": report.peer.address.description,
            "addressType": addressType(report.peer),
            "connectable": report.kind.isConnectable,
            "scanResponse": report.isScanResponse || report.scanResponseData != nil,
            "services": data.serviceUUIDs.map(uuid),
            "serviceData": Dictionary(data.serviceData.map { (uuid($0.key), hex($0.value)) }, uniquingKeysWith: { first, _ in first }),
            "manufacturerData": data.manufacturerData.map { ["company": Int($0.companyIdentifier), "data": hex($0.data)] as [String: Any] },
        ]
        if let rssi = report.rssi { object["rssi"] = Int(rssi) }
        if let name = data.localName { object["name"] = name }
        if let power = data.txPowerLevel { object["txPower"] = Int(power) }
        if let appearance = data.appearance { object["appearance"] = Int(appearance) }
        if let flags = data.flags { object["flags"] = Int(flags) }
        return object
    }

    /// One row of the scan table: address, RSSI, name, services.
    static func discoveryRow(_ report: Discovery) -> String {
        let rssi = report.rssi.map { "\($0) dBm" } ?? "—"
        let name = printable(report.advertisement.localName ?? "(no name)")
        let services = report.advertisement.serviceUUIDs.map { AttributeText.label($0) }.joined(separator: ", ")
        return "\(report.peer.address) \(addressType(report.peer).padding(toLength: 6, withPad: " ", startingAt: 0)) "
            + "\(rssi.padding(toLength: 8, withPad: " ", startingAt: 0)) \(name)" + (services.isEmpty ? "" : "  [\(services)]")
    }
}

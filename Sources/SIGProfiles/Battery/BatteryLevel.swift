/// Battery Level 0x2A19 (Battery Service 3.1): uint8 percentage, 0-100.
public struct BatteryLevel: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A19

    public let percent: UInt8

    public init(percent: UInt8) throws(SIGEncodingError) {
        guard percent <= 100 else {
            throw .outOfRange(field: "battery level", value: "\(percent) %", allowed: "0...100 %")
        }
        self.percent = percent
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, 1, value: "Battery Level")
        guard bytes[0] <= 100 else {
            throw .outOfRange(field: "battery level", value: "\(bytes[0]) %", allowed: "0...100 %")
        }
        percent = bytes[0]
    }

    public var encoded: [UInt8] { [percent] }
}

extension BatteryLevel: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("battery_level_percent", "Battery level", "\(percent) %", .int(Int(percent)))]
    }
}

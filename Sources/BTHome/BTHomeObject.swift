/// The BTHome v2 objects blesensor sends (https://bthome.io/format/; bthome-ble's `const.py`): an
/// object id, then the value little-endian as an integer of `size` octets in units of `factor`.
/// Heart rate and SpO2 have no object: they stay on GATT.
public enum BTHomeObject: UInt8, Sendable, CaseIterable, Comparable {
    case packetID = 0x00
    case battery = 0x01
    case temperature = 0x02
    case humidity = 0x03
    case pressure = 0x04

    public static func < (lhs: BTHomeObject, rhs: BTHomeObject) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The name a configuration uses (`objects:`), the quantity names of `blesensor status`.
    public var name: String {
        switch self {
        case .packetID: "packet-id"
        case .battery: "battery-level"
        case .temperature: "temperature"
        case .humidity: "humidity"
        case .pressure: "pressure"
        }
    }

    public init?(name: String) {
        guard let object = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = object
    }

    var size: Int {
        switch self {
        case .packetID, .battery: 1
        case .temperature, .humidity: 2
        case .pressure: 3
        }
    }

    var signed: Bool { self == .temperature }

    /// The value of one raw unit in blesensor's unit for the quantity (°C, %RH, Pa, %).
    var unit: Double {
        switch self {
        case .packetID, .battery: 1
        case .temperature, .humidity: 0.01
        // 0.01 hPa is one pascal, blesensor's pressure unit.
        case .pressure: 1
        }
    }

    /// What the receiver may show: the integer range, narrowed where the quantity is narrower.
    var rawRange: ClosedRange<Int> {
        switch self {
        case .battery: return 0...100
        case .humidity: return 0...10_000
        default:
            let bits = size * 8
            return signed ? -(1 << (bits - 1))...((1 << (bits - 1)) - 1) : 0...((1 << bits) - 1)
        }
    }

    /// The object's octets (id and value) for `value` in blesensor's unit; nil when the value is not
    /// finite or outside what the object can carry, so a receiver shows no value rather than a wrong
    /// one (humidity is clamped to 0…100 %).
    public func encode(_ value: Double) -> [UInt8]? {
        guard value.isFinite else { return nil }
        var scaled = (value / unit).rounded()
        // A humidity sensor reads a little over 100 % (or under 0) in fog: that is 100 (or 0), not no value.
        if self == .humidity { scaled = min(max(scaled, Double(rawRange.lowerBound)), Double(rawRange.upperBound)) }
        guard scaled >= Double(rawRange.lowerBound), scaled <= Double(rawRange.upperBound) else { return nil }
        let raw = Int(scaled)
        return [rawValue] + (0..<size).map { UInt8(truncatingIfNeeded: raw >> (8 * $0)) }
    }
}

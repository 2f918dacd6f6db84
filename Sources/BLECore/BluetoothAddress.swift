/// A 48-bit device address. `bytes` are in over-the-air (little-endian) order; text is most significant first.
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    public var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    public init(littleEndian b: [UInt8]) {
        precondition(b.count == 6, "a Bluetooth address has 6 bytes")
        bytes = (b[0], b[1], b[2], b[3], b[4], b[5])
    }

    public init(reading reader: inout ByteReader) throws(ByteReaderError) {
        self.init(littleEndian: try reader.readBytes(6))
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (most significant byte first).
    public init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 6 else { return nil }
        var b: [UInt8] = []
        for part in parts.reversed() {
            guard part.count == 2, let value = UInt8(part, radix: 16) else { return nil }
            b.append(value)
        }
        self.init(littleEndian: b)
    }

    public static let zero = BluetoothAddress(littleEndian: [0, 0, 0, 0, 0, 0])

    public var littleEndianBytes: [UInt8] { [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5] }

    public func write(to writer: inout ByteWriter) {
        writer.append(contentsOf: littleEndianBytes)
    }

    /// A random static address has its two most significant bits set (Core spec Vol 6 Part B 1.3.2.1).
    public var isValidRandomStatic: Bool {
        let random = littleEndianBytes
        let bitsBelowTop = random[0..<5].allSatisfy { $0 == 0 } && random[5] & 0x3F == 0
        let allOnes = random[0..<5].allSatisfy { $0 == 0xFF } && random[5] & 0x3F == 0x3F
        return random[5] & 0xC0 == 0xC0 && !bitsBelowTop && !allOnes
    }

    /// A fresh random static address from the system's random source.
    public static func randomStatic<G: RandomNumberGenerator>(using generator: inout G) -> BluetoothAddress {
        while true {
            var b = (0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) }
            b[5] |= 0xC0
            let address = BluetoothAddress(littleEndian: b)
            if address.isValidRandomStatic { return address }
        }
    }

    public static func randomStatic() -> BluetoothAddress {
        var generator = SystemRandomNumberGenerator()
        return randomStatic(using: &generator)
    }

    public var description: String {
        littleEndianBytes.reversed().map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    public static func == (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.littleEndianBytes == rhs.littleEndianBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(littleEndianBytes)
    }
}

/// The address type carried in HCI commands and events (Core spec Vol 4 Part E 7.7.65.10).
public enum AddressType: UInt8, Sendable, Hashable, CustomStringConvertible {
    case publicDevice = 0x00
    case randomDevice = 0x01
    /// Resolved from a resolvable private address to a public identity.
    case publicIdentity = 0x02
    /// Resolved from a resolvable private address to a random static identity.
    case randomIdentity = 0x03

    public var isRandom: Bool { self == .randomDevice || self == .randomIdentity }

    public var description: String {
        switch self {
        case .publicDevice: return "public"
        case .randomDevice: return "random"
        case .publicIdentity: return "public-identity"
        case .randomIdentity: return "random-identity"
        }
    }
}

/// An address together with its type: what identifies a peer.
public struct DeviceAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var type: AddressType

    public init(_ address: BluetoothAddress, type: AddressType) {
        self.address = address
        self.type = type
    }

    public var description: String { "\(address) (\(type))" }
}

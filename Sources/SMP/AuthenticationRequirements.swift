/// The AuthReq field of Pairing Request, Pairing Response and Security Request (Core Vol 3 Part H 3.5.1).
public struct AuthenticationRequirements: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bonding flags 0b01: the keys are to be stored.
    public static let bonding = AuthenticationRequirements(rawValue: 0x01)
    public static let mitm = AuthenticationRequirements(rawValue: 0x04)
    public static let secureConnections = AuthenticationRequirements(rawValue: 0x08)
    public static let keypress = AuthenticationRequirements(rawValue: 0x10)
    /// Support for the h7 function in cross-transport key derivation.
    public static let ct2 = AuthenticationRequirements(rawValue: 0x20)

    public var description: String {
        var parts: [String] = []
        if contains(.bonding) { parts.append("bonding") }
        if contains(.mitm) { parts.append("MITM") }
        if contains(.secureConnections) { parts.append("SC") }
        if contains(.keypress) { parts.append("keypress") }
        if contains(.ct2) { parts.append("CT2") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

/// Which keys a device distributes in phase 3 (Core Vol 3 Part H 3.6.1).
public struct KeyDistribution: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LTK with EDIV and Rand (legacy pairing only; LE Secure Connections derives the LTK).
    public static let encryptionKey = KeyDistribution(rawValue: 0x01)
    /// IRK and identity address.
    public static let identityKey = KeyDistribution(rawValue: 0x02)
    /// CSRK for signed writes.
    public static let signingKey = KeyDistribution(rawValue: 0x04)
    /// BR/EDR link key derivation; an LE-only device clears it.
    public static let linkKey = KeyDistribution(rawValue: 0x08)

    public var description: String {
        var parts: [String] = []
        if contains(.encryptionKey) { parts.append("LTK") }
        if contains(.identityKey) { parts.append("IRK") }
        if contains(.signingKey) { parts.append("CSRK") }
        if contains(.linkKey) { parts.append("link key") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

import BLECore
import HCI

/// The user side of pairing: allows it, shows passkeys and numbers, takes typed passkeys.
/// Called off the protocol's own context; each answer may take as long as the user does, within
/// the 30 s SMP timeout.
public protocol PairingAgent: Sendable {
    /// Whether a pairing from this peer may start now (a pairing window, a maximum of bonds…).
    func mayPair(_ link: Link, request: PairingFeatures) async -> PairingDecision
    /// Shows the passkey the central's user types.
    func display(passkey: UInt32, on link: Link) async
    /// The passkey our user typed (nil: cancelled).
    func enterPasskey(on link: Link) async -> UInt32?
    /// Whether the six-digit number matches the one the peer shows, and whether a person compared.
    func confirm(numericComparison value: UInt32, on link: Link) async -> ComparisonAnswer
}

/// An answer to a numeric comparison. Only a person comparing the two numbers protects against a
/// man in the middle, so only that yields an authenticated key.
public enum ComparisonAnswer: Sendable, Equatable {
    /// A person saw both numbers and confirmed that they match.
    case confirmedByPerson
    /// Accepted by policy with no one comparing (a headless board): the pairing goes on, and its
    /// key is unauthenticated, as Just Works (Linux's JUST_CFM).
    case acceptedWithoutComparing
    case rejected
}

public enum PairingDecision: Sendable, Equatable {
    case allow
    /// Refused with this Pairing Failed reason (e.g. pairing not supported outside the window).
    case refuse(PairingFailureReason, because: String)
}

/// An agent for a board with no user: allows every pairing, logs nothing, confirms every
/// comparison and cannot type (the policy's IO capability keeps it from being asked).
public struct AutomaticPairingAgent: PairingAgent {
    public init() {}
    public func mayPair(_ link: Link, request: PairingFeatures) async -> PairingDecision { .allow }
    public func display(passkey: UInt32, on link: Link) async {}
    public func enterPasskey(on link: Link) async -> UInt32? { nil }
    public func confirm(numericComparison value: UInt32, on link: Link) async -> ComparisonAnswer { .acceptedWithoutComparing }
}

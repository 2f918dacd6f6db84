/// How the two devices authenticate each other (Core Vol 3 Part H 2.3.5.1).
public enum PairingMethod: Sendable, Equatable, CustomStringConvertible {
    case justWorks
    /// Passkey Entry; `responderDisplays` when we (the responder) show it and the initiator types it.
    /// When neither displays, both users type the same passkey.
    case passkeyEntry(responderDisplays: Bool, initiatorDisplays: Bool)
    case numericComparison

    /// Whether the key it makes is protected against a man in the middle.
    public var isAuthenticated: Bool { self != .justWorks }

    public var description: String {
        switch self {
        case .justWorks: return "Just Works"
        case .passkeyEntry(true, _): return "Passkey Entry (we display)"
        case .passkeyEntry(_, true): return "Passkey Entry (the central displays, we enter)"
        case .passkeyEntry: return "Passkey Entry (both enter)"
        case .numericComparison: return "Numeric Comparison"
        }
    }

    /// The method for a pairing, from both sides' features (no OOB: we never hold a peer's OOB data).
    static func select(initiator: PairingFeatures, responder: PairingFeatures, secureConnections: Bool) -> PairingMethod {
        guard initiator.authentication.contains(.mitm) || responder.authentication.contains(.mitm) else { return .justWorks }
        return select(initiator: initiator.ioCapability, responder: responder.ioCapability, secureConnections: secureConnections)
    }

    /// Table 2.8: mapping of IO capabilities to the method (initiator rows, responder columns).
    static func select(initiator: IOCapability, responder: IOCapability, secureConnections: Bool) -> PairingMethod {
        let responderDisplays = PairingMethod.passkeyEntry(responderDisplays: true, initiatorDisplays: false)
        let initiatorDisplays = PairingMethod.passkeyEntry(responderDisplays: false, initiatorDisplays: true)
        let comparisonOr: (PairingMethod) -> PairingMethod = { secureConnections ? .numericComparison : $0 }
        switch (initiator, responder) {
        case (.noInputNoOutput, _), (_, .noInputNoOutput): return .justWorks
        case (.displayOnly, .displayOnly), (.displayOnly, .displayYesNo), (.displayYesNo, .displayOnly): return .justWorks
        case (.displayOnly, .keyboardOnly), (.displayOnly, .keyboardDisplay): return initiatorDisplays
        case (.displayYesNo, .displayYesNo): return comparisonOr(.justWorks)
        case (.displayYesNo, .keyboardOnly): return initiatorDisplays
        case (.displayYesNo, .keyboardDisplay): return comparisonOr(initiatorDisplays)
        case (.keyboardOnly, .displayOnly), (.keyboardOnly, .displayYesNo), (.keyboardOnly, .keyboardDisplay): return responderDisplays
        case (.keyboardOnly, .keyboardOnly): return .passkeyEntry(responderDisplays: false, initiatorDisplays: false)
        case (.keyboardDisplay, .displayOnly): return responderDisplays
        case (.keyboardDisplay, .displayYesNo): return comparisonOr(responderDisplays)
        case (.keyboardDisplay, .keyboardOnly): return initiatorDisplays
        case (.keyboardDisplay, .keyboardDisplay): return comparisonOr(initiatorDisplays)
        }
    }
}

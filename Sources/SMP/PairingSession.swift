import BLECore
import Bonding
import HCI
import SecurityToolbox

/// What a pairing session needs to know about this device and the link.
struct PairingContext: Sendable {
    /// The central's address as it connected (may be a resolvable private address): c1, f5 and f6 use it.
    var initiatorAddress: DeviceAddress
    /// Our address on the link.
    var responderAddress: DeviceAddress
    var policy: SecurityPolicy
    var identity: LocalIdentity
    var randomBytes: @Sendable (Int) -> [UInt8] = SecureRandom.bytes
    var makeKeyPair: @Sendable () -> SecureConnectionsKeyPair = { SecureConnectionsKeyPair() }
}

/// One pairing, as responder (peripheral role) or initiator (central role), from Pairing Request to
/// the last distributed key (Core Vol 3 Part H 2.3, 2.4, 3.5, 3.6). A pure state machine: each input
/// returns the actions to take, so it runs under the manager's lock and is tested byte for byte.
/// Both roles share method selection, confirm checks, key derivation and key distribution; only the
/// order of the commands differs (the `+Initiator` extension).
struct PairingSession {
    enum Phase: Equatable {
        case awaitingApproval
        /// Initiator: our Pairing Request is out.
        case awaitingResponse
        /// Initiator, Just Works / Numeric Comparison: waiting for the responder's commitment Cb.
        case scResponderConfirm
        case legacyConfirm
        case legacyRandom
        case scPublicKey
        /// Passkey Entry round `round` (0…19): waiting for the central's confirm, then its random.
        case scPasskeyConfirm(round: Int)
        case scPasskeyRandom(round: Int)
        /// Just Works or Numeric Comparison: waiting for the central's random.
        case scRandom
        case scDHKeyCheck
        case encryption
        case keyDistribution
        case done
    }

    let context: PairingContext
    let isInitiator: Bool
    var phase: Phase = .awaitingApproval
    var request: PairingFeatures
    var response: PairingFeatures
    var method = PairingMethod.justWorks
    var secureConnections = false
    var keySize = 16
    let preq: [UInt8]
    var pres: [UInt8] = []

    var passkey: UInt32?
    var awaitingPasskey = false
    /// A confirm value that arrived before our user typed the passkey.
    var heldConfirm: [UInt8]?
    var peerConfirm: [UInt8] = []

    // Legacy pairing.
    var tk = [UInt8](repeating: 0, count: 16)
    var mrand: [UInt8] = []
    var srand: [UInt8] = []

    // LE Secure Connections.
    var keyPair: SecureConnectionsKeyPair?
    var peerPublicKey: (x: [UInt8], y: [UInt8]) = ([], [])
    var dhKey: [UInt8] = []
    var na: [UInt8] = []
    var nb: [UInt8] = []
    var comparisonConfirmed: Bool?
    var heldCheck: [UInt8]?
    /// Initiator: the responder's DHKey check we expect once our Ea is out.
    var expectedCheck: [UInt8]?
    var pendingLTK: [UInt8]?

    /// The key the central encrypts with next (STK or LTK) and what it is worth.
    var encryptionKey: (key: [UInt8], properties: EncryptionKeyProperties)?

    // Key distribution.
    var expectedKeys: [SMPOpcode] = []
    var ourKeysSent = false
    var result: PairingResult

    init(request: PairingFeatures, pdu: [UInt8], context: PairingContext) {
        self.context = context
        self.isInitiator = false
        self.request = request
        self.preq = pdu
        self.response = request
        self.result = PairingResult(method: .justWorks, secureConnections: false, keySize: 16, bonding: false)
    }

    // MARK: Phase 1: features

    /// Checks the request against the policy; asks the agent when it could go on.
    mutating func start() -> [PairingAction] {
        let policy = context.policy
        let bonding = policy.bondable && request.authentication.contains(.bonding)
        // LE only: the link key (cross-transport derivation) is never distributed.
        let distribute: (KeyDistribution, KeyDistribution) -> KeyDistribution = { asked, offered in
            bonding ? asked.intersection(offered).subtracting(.linkKey) : []
        }
        response = PairingFeatures(ioCapability: policy.ioCapability, oobDataPresent: false,
                                   authentication: policy.authentication.intersection(bonding ? .all : [.mitm, .secureConnections]),
                                   maxKeySize: 16,
                                   initiatorKeys: distribute(request.initiatorKeys, policy.initiatorKeys),
                                   responderKeys: distribute(request.responderKeys, policy.responderKeys))
        if let refusal = negotiate() { return refusal }
        return [.askApproval(request)]
    }

    /// What both roles check once request and response are known: key size, SC only, OOB, the
    /// method (tables 2.7/2.8) and the MITM requirement. Nil when the pairing may go on.
    mutating func negotiate() -> [PairingAction]? {
        let policy = context.policy
        let peer = isInitiator ? response : request
        secureConnections = request.authentication.contains(.secureConnections) && response.authentication.contains(.secureConnections)
        if policy.secureConnectionsOnly && !secureConnections {
            return fail(.authenticationRequirements, "\(peerName) cannot do LE Secure Connections and legacy pairing is off")
        }
        keySize = min(request.maxKeySize, response.maxKeySize)
        if keySize < policy.minimumKeySize {
            return fail(.encryptionKeySize, "\(peerName) offers at most \(peer.maxKeySize)-octet keys; at least \(policy.minimumKeySize) are required")
        }
        if secureConnections && peer.oobDataPresent {
            return fail(.oobNotAvailable, "\(peerName) wants out-of-band pairing, which this device has no data for")
        }
        method = PairingMethod.select(initiator: request, responder: response, secureConnections: secureConnections)
        if policy.requireMITM && !method.isAuthenticated {
            return fail(.authenticationRequirements, "\(method) is not protected against a man in the middle and the policy requires it")
        }
        let bonding = request.authentication.contains(.bonding) && response.authentication.contains(.bonding)
        result = PairingResult(method: method, secureConnections: secureConnections, keySize: keySize, bonding: bonding)
        return nil
    }

    var peerName: String { isInitiator ? "the peripheral" : "the central" }

    /// The agent's answer to `askApproval`.
    mutating func approve(_ decision: PairingDecision) -> [PairingAction] {
        guard phase == .awaitingApproval else { return [] }
        if case let .refuse(reason, why) = decision { return fail(reason, why) }
        pres = SMPCommand.pairingResponse(response).encoded
        var actions: [PairingAction] = [.send(.pairingResponse(response))]
        actions += startAuthentication()
        phase = secureConnections ? .scPublicKey : .legacyConfirm
        if !secureConnections { srand = context.randomBytes(16) }
        return actions
    }

    /// Shows or asks for the passkey as the method says.
    mutating func startAuthentication() -> [PairingAction] {
        guard case let .passkeyEntry(responderDisplays, initiatorDisplays) = method else { return [] }
        if isInitiator ? initiatorDisplays : responderDisplays {
            let value: UInt32
            switch context.policy.passkey {
            case let .fixed(fixed): value = fixed % 1_000_000
            case .random:
                let bytes = context.randomBytes(4)
                value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
            }
            setPasskey(value)
            return [.display(passkey: value)]
        }
        awaitingPasskey = true
        return [.askPasskey]
    }

    mutating func setPasskey(_ value: UInt32) {
        passkey = value
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes[0] = UInt8(truncatingIfNeeded: value)
        bytes[1] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[2] = UInt8(truncatingIfNeeded: value >> 16)
        tk = bytes
    }

    /// The agent's answer to `askPasskey`.
    mutating func passkeyEntered(_ value: UInt32?) -> [PairingAction] {
        guard awaitingPasskey, phase != .done else { return [] }
        awaitingPasskey = false
        guard let value, value < 1_000_000 else { return fail(.passkeyEntryFailed, "passkey entry was cancelled") }
        setPasskey(value)
        if isInitiator { return commitAfterPasskey() }
        guard let held = heldConfirm else { return [] }
        heldConfirm = nil
        return receive(.pairingConfirm(held))
    }

    // MARK: Commands from the central

    mutating func receive(_ command: SMPCommand) -> [PairingAction] {
        if case let .pairingFailed(reason) = command {
            phase = .done
            return [.failed(reason, sent: false, detail: "\(peerName) ended pairing")]
        }
        if isInitiator, let actions = initiatorReceive(command) { return actions }
        if !isInitiator, let actions = responderReceive(command) { return actions }
        switch (phase, command) {
        case (.keyDistribution, _) where expectedKeys.first == command.opcode:
            return receiveKey(command)
        case (.encryption, _) where Self.keyOpcodes.contains(command.opcode):
            // The peer may send its keys the moment the link is encrypted, before the
            // Encryption Change reaches us here: they wait for it.
            heldKeys.append(command)
            return []
        case (.done, _):
            // After a pairing ended, nothing is answered (never Pairing Failed for Pairing Failed).
            return []
        case (_, .keypressNotification):
            return []
        default:
            return fail(.unspecifiedReason, "unexpected \(command.opcode) while \(phase)")
        }
    }

    /// The responder's half of the exchange; nil for what both roles handle alike.
    mutating func responderReceive(_ command: SMPCommand) -> [PairingAction]? {
        switch (phase, command) {
        case (.legacyConfirm, let .pairingConfirm(value)):
            guard !awaitingPasskey else { heldConfirm = value; return [] }
            return legacyConfirm(value)
        case (.legacyRandom, let .pairingRandom(value)):
            return legacyRandom(value)
        case (.scPublicKey, let .pairingPublicKey(x, y)):
            return publicKey(x: x, y: y)
        case (.scPasskeyConfirm(let round), let .pairingConfirm(value)):
            guard !awaitingPasskey else { heldConfirm = value; return [] }
            return passkeyConfirm(value, round: round)
        case (.scPasskeyRandom(let round), let .pairingRandom(value)):
            return passkeyRandom(value, round: round)
        case (.scRandom, let .pairingRandom(value)):
            return scRandom(value)
        case (.scDHKeyCheck, let .pairingDHKeyCheck(value)):
            heldCheck = value
            return dhKeyCheck()
        default:
            return nil
        }
    }

    var pendingPeerLTK: [UInt8]?
    var heldKeys: [SMPCommand] = []
    static let keyOpcodes: Set<SMPOpcode> = [.encryptionInformation, .centralIdentification, .identityInformation,
                                             .identityAddressInformation, .signingInformation]

    // MARK: Helpers

    mutating func fail(_ reason: PairingFailureReason, _ detail: String) -> [PairingAction] {
        phase = .done
        return [.send(.pairingFailed(reason)), .failed(reason, sent: true, detail: detail)]
    }

    /// A key shortened to `size` octets: the most significant octets are zero (2.3.4).
    static func masked(_ key: [UInt8], to size: Int) -> [UInt8] {
        key.enumerated().map { $0.offset < size ? $0.element : 0 }
    }
}

extension AuthenticationRequirements {
    static let all: AuthenticationRequirements = [.bonding, .mitm, .secureConnections, .keypress, .ct2]
}

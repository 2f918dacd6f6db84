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

/// One pairing as responder (peripheral role), from Pairing Request to the last distributed key
/// (Core Vol 3 Part H 2.3, 2.4, 3.5, 3.6). A pure state machine: each input returns the actions
/// to take, so it runs under the manager's lock and is tested byte for byte.
struct PairingSession {
    enum Phase: Equatable {
        case awaitingApproval
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
    private(set) var phase: Phase = .awaitingApproval
    private(set) var request: PairingFeatures
    private(set) var response: PairingFeatures
    private(set) var method = PairingMethod.justWorks
    private(set) var secureConnections = false
    private(set) var keySize = 16
    private let preq: [UInt8]
    private var pres: [UInt8] = []

    private var passkey: UInt32?
    private var awaitingPasskey = false
    /// A confirm value that arrived before our user typed the passkey.
    private var heldConfirm: [UInt8]?
    private var peerConfirm: [UInt8] = []

    // Legacy pairing.
    private var tk = [UInt8](repeating: 0, count: 16)
    private var srand: [UInt8] = []

    // LE Secure Connections.
    private var keyPair: SecureConnectionsKeyPair?
    private var peerPublicKey: (x: [UInt8], y: [UInt8]) = ([], [])
    private var dhKey: [UInt8] = []
    private var na: [UInt8] = []
    private var nb: [UInt8] = []
    private var comparisonConfirmed: Bool?
    private var heldCheck: [UInt8]?

    /// The key the central encrypts with next (STK or LTK) and what it is worth.
    private(set) var encryptionKey: (key: [UInt8], properties: EncryptionKeyProperties)?

    // Key distribution.
    private var expectedKeys: [SMPOpcode] = []
    private var result: PairingResult

    init(request: PairingFeatures, pdu: [UInt8], context: PairingContext) {
        self.context = context
        self.request = request
        self.preq = pdu
        self.response = request
        self.result = PairingResult(method: .justWorks, secureConnections: false, keySize: 16, bonding: false)
    }

    // MARK: Phase 1: features

    /// Checks the request against the policy; asks the agent when it could go on.
    mutating func start() -> [PairingAction] {
        let policy = context.policy
        let peerSC = request.authentication.contains(.secureConnections)
        if policy.secureConnectionsOnly && !peerSC {
            return fail(.authenticationRequirements, "the central cannot do LE Secure Connections and legacy pairing is off")
        }
        if request.maxKeySize < policy.minimumKeySize {
            return fail(.encryptionKeySize, "the central offers at most \(request.maxKeySize)-octet keys; at least \(policy.minimumKeySize) are required")
        }
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
        secureConnections = peerSC
        if secureConnections && request.oobDataPresent {
            return fail(.oobNotAvailable, "the central wants out-of-band pairing, which this device has no data for")
        }
        method = PairingMethod.select(initiator: request, responder: response, secureConnections: secureConnections)
        if policy.requireMITM && !method.isAuthenticated {
            return fail(.authenticationRequirements, "\(method) is not protected against a man in the middle and the policy requires it")
        }
        keySize = min(request.maxKeySize, response.maxKeySize)
        result = PairingResult(method: method, secureConnections: secureConnections, keySize: keySize, bonding: bonding)
        return [.askApproval(request)]
    }

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
    private mutating func startAuthentication() -> [PairingAction] {
        guard case let .passkeyEntry(responderDisplays, _) = method else { return [] }
        if responderDisplays {
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

    private mutating func setPasskey(_ value: UInt32) {
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
        guard let held = heldConfirm else { return [] }
        heldConfirm = nil
        return receive(.pairingConfirm(held))
    }

    // MARK: Commands from the central

    mutating func receive(_ command: SMPCommand) -> [PairingAction] {
        if case let .pairingFailed(reason) = command {
            phase = .done
            return [.failed(reason, sent: false, detail: "the central ended pairing")]
        }
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
        case (.keyDistribution, _) where expectedKeys.first == command.opcode:
            return receiveKey(command)
        case (.encryption, _) where Self.keyOpcodes.contains(command.opcode):
            // The central may send its keys the moment the link is encrypted, before the
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

    // MARK: Legacy pairing (2.3.5.5)

    private mutating func legacyConfirm(_ mconfirm: [UInt8]) -> [PairingAction] {
        peerConfirm = mconfirm
        do {
            let sconfirm = try SecurityFunctions.c1(k: tk, r: srand, preq: preq, pres: pres,
                                                     initiator: context.initiatorAddress, responder: context.responderAddress)
            phase = .legacyRandom
            return [.send(.pairingConfirm(sconfirm))]
        } catch {
            return fail(.unspecifiedReason, "c1 failed: \(error)")
        }
    }

    private mutating func legacyRandom(_ mrand: [UInt8]) -> [PairingAction] {
        do {
            let expected = try SecurityFunctions.c1(k: tk, r: mrand, preq: preq, pres: pres,
                                                     initiator: context.initiatorAddress, responder: context.responderAddress)
            guard expected == peerConfirm else {
                return fail(.confirmValueFailed, "the central's confirm value does not match its random" +
                            (method == .justWorks ? "" : " (a wrong passkey?)"))
            }
            let stk = Self.masked(try SecurityFunctions.s1(k: tk, r1: srand, r2: mrand), to: keySize)
            encryptionKey = (stk, result.properties)
            phase = .encryption
            return [.send(.pairingRandom(srand))]
        } catch {
            return fail(.unspecifiedReason, "legacy key generation failed: \(error)")
        }
    }

    // MARK: LE Secure Connections (2.3.5.6)

    private mutating func publicKey(x: [UInt8], y: [UInt8]) -> [PairingAction] {
        let pair = context.makeKeyPair()
        do {
            dhKey = try pair.dhKey(peerX: x, peerY: y)
        } catch {
            return fail(.invalidParameters, "the central's public key is refused: \(error)")
        }
        keyPair = pair
        peerPublicKey = (x, y)
        var actions: [PairingAction] = [.send(.pairingPublicKey(x: pair.publicKeyX, y: pair.publicKeyY))]
        switch method {
        case .passkeyEntry:
            phase = .scPasskeyConfirm(round: 0)
        case .justWorks, .numericComparison:
            // The responder commits first in these methods (2.3.5.6.2).
            nb = context.randomBytes(16)
            do {
                let cb = try SecurityFunctions.f4(u: pair.publicKeyX, v: x, x: nb, z: 0)
                actions.append(.send(.pairingConfirm(cb)))
            } catch {
                return fail(.unspecifiedReason, "f4 failed: \(error)")
            }
            phase = .scRandom
        }
        return actions
    }

    private mutating func scRandom(_ value: [UInt8]) -> [PairingAction] {
        na = value
        phase = .scDHKeyCheck
        var actions: [PairingAction] = [.send(.pairingRandom(nb))]
        if method == .numericComparison {
            do {
                let number = try SecurityFunctions.g2(u: peerPublicKey.x, v: keyPair?.publicKeyX ?? [], x: na, y: nb)
                actions.append(.askComparison(number))
            } catch {
                return fail(.unspecifiedReason, "g2 failed: \(error)")
            }
        } else {
            comparisonConfirmed = true
        }
        return actions
    }

    /// The agent's answer to `askComparison`.
    mutating func comparisonAnswered(_ matches: Bool) -> [PairingAction] {
        guard method == .numericComparison, comparisonConfirmed == nil, phase == .scDHKeyCheck else { return [] }
        guard matches else { return fail(.numericComparisonFailed, "the numbers were not confirmed as equal") }
        comparisonConfirmed = true
        return dhKeyCheck()
    }

    private var passkeyBits: [UInt8] {
        var value = [UInt8](repeating: 0, count: 16)
        let key = passkey ?? 0
        value[0] = UInt8(truncatingIfNeeded: key)
        value[1] = UInt8(truncatingIfNeeded: key >> 8)
        value[2] = UInt8(truncatingIfNeeded: key >> 16)
        return value
    }

    private func roundBit(_ round: Int) -> UInt8 { 0x80 | UInt8(((passkey ?? 0) >> UInt32(round)) & 1) }

    private mutating func passkeyConfirm(_ cai: [UInt8], round: Int) -> [PairingAction] {
        guard let keyPair else { return fail(.unspecifiedReason, "no key pair") }
        peerConfirm = cai
        nb = context.randomBytes(16)
        do {
            let cbi = try SecurityFunctions.f4(u: keyPair.publicKeyX, v: peerPublicKey.x, x: nb, z: roundBit(round))
            phase = .scPasskeyRandom(round: round)
            return [.send(.pairingConfirm(cbi))]
        } catch {
            return fail(.unspecifiedReason, "f4 failed: \(error)")
        }
    }

    private mutating func passkeyRandom(_ nai: [UInt8], round: Int) -> [PairingAction] {
        guard let keyPair else { return fail(.unspecifiedReason, "no key pair") }
        do {
            let expected = try SecurityFunctions.f4(u: peerPublicKey.x, v: keyPair.publicKeyX, x: nai, z: roundBit(round))
            guard expected == peerConfirm else {
                return fail(.confirmValueFailed, "passkey round \(round + 1) does not match (a wrong passkey?)")
            }
        } catch {
            return fail(.unspecifiedReason, "f4 failed: \(error)")
        }
        na = nai
        if round == 19 {
            comparisonConfirmed = true
            phase = .scDHKeyCheck
        } else {
            phase = .scPasskeyConfirm(round: round + 1)
        }
        return [.send(.pairingRandom(nb))]
    }

    /// Checks Ea and answers Eb once both the central's check and our user's confirmation are in.
    private mutating func dhKeyCheck() -> [PairingAction] {
        guard let ea = heldCheck, comparisonConfirmed == true else { return [] }
        let a = context.initiatorAddress, b = context.responderAddress
        let r: [UInt8] = method == .justWorks || method == .numericComparison ? [UInt8](repeating: 0, count: 16) : passkeyBits
        // The octets as sent: a reserved AuthReq bit the central set is part of its check value.
        let ioCapA = Array(preq[1...3])
        let ioCapB = Array(pres[1...3])
        do {
            let keys = try SecurityFunctions.f5(w: dhKey, n1: na, n2: nb, a1: a, a2: b)
            let expected = try SecurityFunctions.f6(w: keys.macKey, n1: na, n2: nb, r: r, ioCap: ioCapA, a1: a, a2: b)
            guard expected == ea else { return fail(.dhKeyCheckFailed, "the central's DHKey check value does not match") }
            let eb = try SecurityFunctions.f6(w: keys.macKey, n1: nb, n2: na, r: r, ioCap: ioCapB, a1: b, a2: a)
            let ltk = Self.masked(keys.ltk, to: keySize)
            encryptionKey = (ltk, result.properties)
            if let key = Key128(ltk) {
                result.ltk = LongTermKeyRecord(key: key, ediv: 0, rand: 0, keySize: keySize, authenticated: method.isAuthenticated,
                                               secureConnections: true)
            }
            phase = .encryption
            return [.send(.pairingDHKeyCheck(eb))]
        } catch {
            return fail(.unspecifiedReason, "key generation failed: \(error)")
        }
    }

    // MARK: Phase 3: encryption and key distribution (3.6.1)

    /// The key for the central's LE Long Term Key Request during pairing (EDIV and Rand are zero).
    func keyForEncryption(random: UInt64, ediv: UInt16) -> (key: [UInt8], properties: EncryptionKeyProperties)? {
        guard phase == .encryption, random == 0, ediv == 0 else { return nil }
        return encryptionKey
    }

    /// The link is encrypted with the pairing's key: we send our keys, then wait for the central's.
    mutating func encrypted() -> [PairingAction] {
        guard phase == .encryption else { return [] }
        var actions: [PairingAction] = []
        let keys = response.responderKeys
        let attributes = result.properties
        if keys.contains(.encryptionKey) && !secureConnections {
            let ltk = Self.masked(context.randomBytes(16), to: keySize)
            let ediv = context.randomBytes(2).reduce(UInt16(0)) { $0 << 8 | UInt16($1) }
            let rand = context.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if let key = Key128(ltk) {
                result.ltk = LongTermKeyRecord(key: key, ediv: ediv, rand: rand, keySize: keySize,
                                               authenticated: attributes.authenticated, secureConnections: false)
            }
            actions += [.send(.encryptionInformation(ltk: ltk)), .send(.centralIdentification(ediv: ediv, rand: rand))]
        }
        if keys.contains(.identityKey) {
            // The identity address is the one we advertise and connect with, so the central finds
            // its bond when we next advertise (a random static or public address, never private).
            actions += [.send(.identityInformation(irk: context.identity.irk.bytes)),
                        .send(.identityAddressInformation(context.responderAddress.bondIdentity))]
        }
        if keys.contains(.signingKey) {
            result.localCSRK = context.identity.csrk
            actions.append(.send(.signingInformation(csrk: context.identity.csrk.bytes)))
        }
        let initiatorKeys = response.initiatorKeys
        expectedKeys = []
        if initiatorKeys.contains(.encryptionKey) && !secureConnections { expectedKeys += [.encryptionInformation, .centralIdentification] }
        if initiatorKeys.contains(.identityKey) { expectedKeys += [.identityInformation, .identityAddressInformation] }
        if initiatorKeys.contains(.signingKey) { expectedKeys.append(.signingInformation) }
        phase = .keyDistribution
        actions += finishIfComplete()
        let held = heldKeys
        heldKeys = []
        for command in held where phase != .done { actions += receive(command) }
        return actions
    }

    private var pendingPeerLTK: [UInt8]?
    private var heldKeys: [SMPCommand] = []
    static let keyOpcodes: Set<SMPOpcode> = [.encryptionInformation, .centralIdentification, .identityInformation,
                                             .identityAddressInformation, .signingInformation]

    private mutating func receiveKey(_ command: SMPCommand) -> [PairingAction] {
        expectedKeys.removeFirst()
        switch command {
        case let .encryptionInformation(ltk):
            pendingPeerLTK = ltk
        case let .centralIdentification(ediv, rand):
            if let bytes = pendingPeerLTK, let key = Key128(bytes) {
                result.peerLTK = LongTermKeyRecord(key: key, ediv: ediv, rand: rand, keySize: keySize,
                                                   authenticated: method.isAuthenticated, secureConnections: false)
            }
        case let .identityInformation(irk):
            result.peerIRK = Key128(irk)
        case let .identityAddressInformation(address):
            // An identity address must be public or random static (top two bits 11): anything else is refused.
            if address.type.isRandom && address.address.littleEndianBytes[5] & 0xC0 != 0xC0 {
                return fail(.invalidParameters, "the central's identity address \(address.address) is not a static random address")
            }
            result.peerIdentity = address
        case let .signingInformation(csrk):
            result.peerCSRK = Key128(csrk)
        default:
            break
        }
        return finishIfComplete()
    }

    private mutating func finishIfComplete() -> [PairingAction] {
        guard phase == .keyDistribution, expectedKeys.isEmpty else { return [] }
        phase = .done
        return [.completed(result)]
    }

    /// An encryption attempt with the pairing's key failed (Encryption Change with an error).
    mutating func encryptionFailed(_ status: HCIStatus) -> [PairingAction] {
        guard phase == .encryption || phase == .keyDistribution else { return [] }
        phase = .done
        return [.failed(.unspecifiedReason, sent: false, detail: "encryption with the new key failed: \(status)")]
    }

    var isFinished: Bool { phase == .done }

    // MARK: Helpers

    private mutating func fail(_ reason: PairingFailureReason, _ detail: String) -> [PairingAction] {
        phase = .done
        return [.send(.pairingFailed(reason)), .failed(reason, sent: true, detail: detail)]
    }

    /// A key shortened to `size` octets: the most significant octets are zero (2.3.4).
    static func masked(_ key: [UInt8], to size: Int) -> [UInt8] {
        key.enumerated().map { $0.offset < size ? $0.element : 0 }
    }
}

private extension AuthenticationRequirements {
    static let all: AuthenticationRequirements = [.bonding, .mitm, .secureConnections, .keypress, .ct2]
}

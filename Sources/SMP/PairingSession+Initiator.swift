import BLECore
import Bonding
import HCI
import SecurityToolbox

/// The initiator's (central role's) order of the exchange: it requests, commits first in legacy
/// pairing and in each Passkey Entry round, sends its public key first, sends Ea and checks Eb,
/// and starts encryption itself (Core Vol 3 Part H 2.3.5.5, 2.3.5.6, 3.5).
extension PairingSession {
    /// A session that starts with our Pairing Request, built from the policy.
    init(initiating context: PairingContext) {
        self.init(initiatingWith: PairingFeatures.request(from: context.policy), context: context)
    }

    /// A session with an explicit request (tests replay the specification's sample exchanges).
    init(initiatingWith request: PairingFeatures, context: PairingContext) {
        self.context = context
        self.isInitiator = true
        self.request = request
        self.preq = SMPCommand.pairingRequest(request).encoded
        self.response = request
        self.phase = .awaitingResponse
        self.result = PairingResult(method: .justWorks, secureConnections: false, keySize: 16, bonding: false)
    }

    /// Sends the Pairing Request.
    func begin() -> [PairingAction] { [.send(.pairingRequest(request))] }

    /// The initiator's half of the exchange; nil for what both roles handle alike.
    mutating func initiatorReceive(_ command: SMPCommand) -> [PairingAction]? {
        switch (phase, command) {
        case (.awaitingResponse, let .pairingResponse(features)):
            return pairingResponse(features, pdu: command.encoded)
        case (.legacyConfirm, let .pairingConfirm(sconfirm)) where !mrand.isEmpty:
            peerConfirm = sconfirm
            phase = .legacyRandom
            return [.send(.pairingRandom(mrand))]
        case (.legacyRandom, let .pairingRandom(srand)):
            if let failure = checkPeerRandomAndDeriveSTK(srand) { return failure }
            return startEncryption()
        case (.scPublicKey, let .pairingPublicKey(x, y)):
            return responderPublicKey(x: x, y: y)
        case (.scResponderConfirm, let .pairingConfirm(cb)):
            peerConfirm = cb
            na = context.randomBytes(16)
            phase = .scRandom
            return [.send(.pairingRandom(na))]
        case (.scRandom, let .pairingRandom(nb)):
            return responderNonce(nb)
        case (.scPasskeyConfirm(let round), let .pairingConfirm(cbi)) where !na.isEmpty:
            peerConfirm = cbi
            phase = .scPasskeyRandom(round: round)
            return [.send(.pairingRandom(na))]
        case (.scPasskeyRandom(let round), let .pairingRandom(nbi)):
            return passkeyRoundCompleted(nbi, round: round)
        case (.scDHKeyCheck, let .pairingDHKeyCheck(eb)) where expectedCheck != nil:
            guard eb == expectedCheck else { return fail(.dhKeyCheckFailed, "the peripheral's DHKey check value does not match") }
            return startEncryption()
        default:
            return nil
        }
    }

    /// Checks the response against our request and policy, then starts authentication.
    mutating func pairingResponse(_ features: PairingFeatures, pdu: [UInt8]) -> [PairingAction] {
        guard features.initiatorKeys.isSubset(of: request.initiatorKeys), features.responderKeys.isSubset(of: request.responderKeys) else {
            return fail(.invalidParameters, "the peripheral's Pairing Response asks for keys that were not offered")
        }
        response = features
        pres = pdu
        if let refusal = negotiate() { return refusal }
        var actions: [PairingAction] = [.started(method)]
        actions += startAuthentication()
        if secureConnections {
            let pair = context.makeKeyPair()
            keyPair = pair
            phase = .scPublicKey
            actions.append(.send(.pairingPublicKey(x: pair.publicKeyX, y: pair.publicKeyY)))
        } else {
            phase = .legacyConfirm
            actions += commitAfterPasskey()
        }
        return actions
    }

    /// Our first commitment once TK (legacy) or the passkey (SC) is known: Mconfirm, or Ca of round 0.
    mutating func commitAfterPasskey() -> [PairingAction] {
        guard !awaitingPasskey else { return [] }
        switch phase {
        case .legacyConfirm where mrand.isEmpty:
            mrand = context.randomBytes(16)
            do {
                return [.send(.pairingConfirm(try legacyConfirmValue(random: mrand)))]
            } catch {
                return fail(.unspecifiedReason, "c1 failed: \(error)")
            }
        case .scPasskeyConfirm(round: 0) where na.isEmpty && !dhKey.isEmpty:
            return passkeyCommit(round: 0)
        default:
            return []
        }
    }

    mutating func responderPublicKey(x: [UInt8], y: [UInt8]) -> [PairingAction] {
        guard let pair = keyPair else { return fail(.unspecifiedReason, "no key pair") }
        if let refused = acceptPeerPublicKey(x: x, y: y, pair: pair) { return refused }
        if case .passkeyEntry = method {
            phase = .scPasskeyConfirm(round: 0)
            return commitAfterPasskey()
        }
        // Just Works and Numeric Comparison: the responder commits first (2.3.5.6.2).
        phase = .scResponderConfirm
        return []
    }

    /// Nb against the responder's commitment Cb = f4(PKb, PKa, Nb, 0); then the comparison or Ea.
    mutating func responderNonce(_ value: [UInt8]) -> [PairingAction] {
        do {
            let keys = publicKeysAB
            guard try SecurityFunctions.f4(u: keys.b, v: keys.a, x: value, z: 0) == peerConfirm else {
                return fail(.confirmValueFailed, "the peripheral's confirm value does not match its nonce")
            }
            nb = value
            phase = .scDHKeyCheck
            if method == .numericComparison { return [.askComparison(try comparisonValue())] }
        } catch {
            return fail(.unspecifiedReason, "f4/g2 failed: \(error)")
        }
        comparisonConfirmed = true
        return sendInitiatorCheck()
    }

    /// Passkey round `round`: Nai and Cai = f4(PKa, PKb, Nai, rai), the initiator commits first.
    mutating func passkeyCommit(round: Int) -> [PairingAction] {
        let keys = publicKeysAB
        na = context.randomBytes(16)
        do {
            let cai = try SecurityFunctions.f4(u: keys.a, v: keys.b, x: na, z: roundBit(round))
            phase = .scPasskeyConfirm(round: round)
            return [.send(.pairingConfirm(cai))]
        } catch {
            return fail(.unspecifiedReason, "f4 failed: \(error)")
        }
    }

    mutating func passkeyRoundCompleted(_ nbi: [UInt8], round: Int) -> [PairingAction] {
        let keys = publicKeysAB
        do {
            guard try SecurityFunctions.f4(u: keys.b, v: keys.a, x: nbi, z: roundBit(round)) == peerConfirm else {
                return fail(.confirmValueFailed, "passkey round \(round + 1) does not match (a wrong passkey?)")
            }
        } catch {
            return fail(.unspecifiedReason, "f4 failed: \(error)")
        }
        nb = nbi
        guard round == 19 else { return passkeyCommit(round: round + 1) }
        comparisonConfirmed = true
        phase = .scDHKeyCheck
        return sendInitiatorCheck()
    }

    /// Ea, once the user confirmed (or the method needs no confirmation); Eb is then expected.
    mutating func sendInitiatorCheck() -> [PairingAction] {
        guard comparisonConfirmed == true, expectedCheck == nil else { return [] }
        do {
            let checks = try dhKeyChecks()
            expectedCheck = checks.eb
            pendingLTK = checks.ltk
            return [.send(.pairingDHKeyCheck(checks.ea))]
        } catch {
            return fail(.unspecifiedReason, "key generation failed: \(error)")
        }
    }

    /// The STK (legacy) or the LTK (SC) is ready: the initiator starts encryption with it (EDIV and Rand zero).
    mutating func startEncryption() -> [PairingAction] {
        if secureConnections, let ltk = pendingLTK { adoptSecureConnectionsLTK(ltk) }
        guard let key = encryptionKey else { return fail(.unspecifiedReason, "no key to encrypt with") }
        phase = .encryption
        return [.startEncryption(key: key.key, properties: key.properties)]
    }
}

extension PairingFeatures {
    /// Our Pairing Request: what the policy offers and asks for (keys only when bonding; never the link key).
    static func request(from policy: SecurityPolicy) -> PairingFeatures {
        let keys: (KeyDistribution) -> KeyDistribution = { policy.bondable ? $0.subtracting(.linkKey) : [] }
        return PairingFeatures(ioCapability: policy.ioCapability, oobDataPresent: false, authentication: policy.authentication,
                               maxKeySize: 16, initiatorKeys: keys(policy.initiatorKeys), responderKeys: keys(policy.responderKeys))
    }
}

import BLECore
import Bonding
import HCI
import SecurityToolbox

/// LE Secure Connections: public keys, the three methods' commitments, DHKey checks (2.3.5.6).
/// The shared checks and derivations are here with the responder's order; the initiator's is in `+Initiator`.
extension PairingSession {
    // MARK: LE Secure Connections (2.3.5.6)

    /// DHKey from the peer's public key and our pair; nil when accepted, else the failure
    /// (a key off the curve or our own key reflected).
    mutating func acceptPeerPublicKey(x: [UInt8], y: [UInt8], pair: SecureConnectionsKeyPair) -> [PairingAction]? {
        do {
            dhKey = try pair.dhKey(peerX: x, peerY: y)
        } catch {
            return fail(.invalidParameters, "\(peerName)'s public key is refused: \(error)")
        }
        keyPair = pair
        peerPublicKey = (x, y)
        result.peerUsedDebugKey = SecureConnectionsKeyPair.isDebugPublicKey(x: x, y: y)
        return nil
    }

    /// Our public key X and the peer's, in the initiator-first order f4, g2 and f6 take them.
    var publicKeysAB: (a: [UInt8], b: [UInt8]) {
        let ours = keyPair?.publicKeyX ?? []
        return isInitiator ? (ours, peerPublicKey.x) : (peerPublicKey.x, ours)
    }

    /// MacKey and LTK from f5, and both DHKey check values Ea and Eb from f6 (2.3.5.6.5).
    func dhKeyChecks() throws(SecurityToolboxError) -> (ltk: [UInt8], ea: [UInt8], eb: [UInt8]) {
        let a = context.initiatorAddress, b = context.responderAddress
        let r: [UInt8] = method == .justWorks || method == .numericComparison ? [UInt8](repeating: 0, count: 16) : passkeyBits
        // The octets as sent: a reserved AuthReq bit the initiator set is part of its check value.
        let ioCapA = Array(preq[1...3])
        let ioCapB = Array(pres[1...3])
        let keys = try SecurityFunctions.f5(w: dhKey, n1: na, n2: nb, a1: a, a2: b)
        let ea = try SecurityFunctions.f6(w: keys.macKey, n1: na, n2: nb, r: r, ioCap: ioCapA, a1: a, a2: b)
        let eb = try SecurityFunctions.f6(w: keys.macKey, n1: nb, n2: na, r: r, ioCap: ioCapB, a1: b, a2: a)
        return (keys.ltk, ea, eb)
    }

    /// The f5 LTK becomes the key that encrypts the link now and in later connections (ediv 0, rand 0).
    mutating func adoptSecureConnectionsLTK(_ derived: [UInt8]) {
        let ltk = Self.masked(derived, to: keySize)
        encryptionKey = (ltk, result.properties)
        if let key = Key128(ltk) {
            result.ltk = LongTermKeyRecord(key: key, ediv: 0, rand: 0, keySize: keySize, authenticated: result.properties.authenticated,
                                           secureConnections: true)
        }
        phase = .encryption
    }

    /// The numeric comparison, for the responder's nonce `nb` and the initiator's `na`.
    func comparisonValue() throws(SecurityToolboxError) -> UInt32 {
        let keys = publicKeysAB
        return try SecurityFunctions.g2(u: keys.a, v: keys.b, x: na, y: nb)
    }

    mutating func publicKey(x: [UInt8], y: [UInt8]) -> [PairingAction] {
        let pair = context.makeKeyPair()
        if let refused = acceptPeerPublicKey(x: x, y: y, pair: pair) { return refused }
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

    mutating func scRandom(_ value: [UInt8]) -> [PairingAction] {
        na = value
        phase = .scDHKeyCheck
        var actions: [PairingAction] = [.send(.pairingRandom(nb))]
        if method == .numericComparison {
            do {
                actions.append(.askComparison(try comparisonValue()))
            } catch {
                return fail(.unspecifiedReason, "g2 failed: \(error)")
            }
        } else {
            comparisonConfirmed = true
        }
        return actions
    }

    /// The agent's answer to `askComparison`.
    mutating func comparisonAnswered(_ answer: ComparisonAnswer) -> [PairingAction] {
        guard method == .numericComparison, comparisonConfirmed == nil, phase == .scDHKeyCheck else { return [] }
        guard answer != .rejected else { return fail(.numericComparisonFailed, "the numbers were not confirmed as equal") }
        result.comparedByNoOne = answer == .acceptedWithoutComparing
        comparisonConfirmed = true
        return isInitiator ? sendInitiatorCheck() : dhKeyCheck()
    }

    var passkeyBits: [UInt8] {
        var value = [UInt8](repeating: 0, count: 16)
        let key = passkey ?? 0
        value[0] = UInt8(truncatingIfNeeded: key)
        value[1] = UInt8(truncatingIfNeeded: key >> 8)
        value[2] = UInt8(truncatingIfNeeded: key >> 16)
        return value
    }

    func roundBit(_ round: Int) -> UInt8 { 0x80 | UInt8(((passkey ?? 0) >> UInt32(round)) & 1) }

    mutating func passkeyConfirm(_ cai: [UInt8], round: Int) -> [PairingAction] {
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

    mutating func passkeyRandom(_ nai: [UInt8], round: Int) -> [PairingAction] {
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
    mutating func dhKeyCheck() -> [PairingAction] {
        guard let ea = heldCheck, comparisonConfirmed == true else { return [] }
        do {
            let checks = try dhKeyChecks()
            guard checks.ea == ea else { return fail(.dhKeyCheckFailed, "the central's DHKey check value does not match") }
            adoptSecureConnectionsLTK(checks.ltk)
            return [.send(.pairingDHKeyCheck(checks.eb))]
        } catch {
            return fail(.unspecifiedReason, "key generation failed: \(error)")
        }
    }
}

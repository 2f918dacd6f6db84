import BLECore
import Bonding
import HCI
import SecurityToolbox

/// Phase 3: the encryption with the pairing's key, then the keys each side distributes (3.6.1).
extension PairingSession {
    // MARK: Phase 3: encryption and key distribution (3.6.1)

    /// The key for the central's LE Long Term Key Request during pairing (EDIV and Rand are zero).
    func keyForEncryption(random: UInt64, ediv: UInt16) -> (key: [UInt8], properties: EncryptionKeyProperties)? {
        guard !isInitiator, phase == .encryption, random == 0, ediv == 0 else { return nil }
        return encryptionKey
    }

    /// The link is encrypted with the pairing's key. The responder distributes first (3.6.1): as
    /// responder we send our keys and wait for the initiator's; as initiator we wait for the
    /// responder's and send ours after its last.
    mutating func encrypted() -> [PairingAction] {
        guard phase == .encryption else { return [] }
        let peerKeys = isInitiator ? response.responderKeys : response.initiatorKeys
        expectedKeys = []
        if peerKeys.contains(.encryptionKey) && !secureConnections { expectedKeys += [.encryptionInformation, .centralIdentification] }
        if peerKeys.contains(.identityKey) { expectedKeys += [.identityInformation, .identityAddressInformation] }
        if peerKeys.contains(.signingKey) { expectedKeys.append(.signingInformation) }
        phase = .keyDistribution
        var actions = isInitiator ? [] : sendOurKeys()
        actions += finishIfComplete()
        let held = heldKeys
        heldKeys = []
        for command in held where phase != .done { actions += receive(command) }
        return actions
    }

    /// Our keys as negotiated: a legacy LTK with EDIV/Rand, IRK and identity address, CSRK.
    mutating func sendOurKeys() -> [PairingAction] {
        ourKeysSent = true
        var actions: [PairingAction] = []
        let keys = isInitiator ? response.initiatorKeys : response.responderKeys
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
            // The identity address is the one we advertise and connect with, so the peer finds
            // its bond when we next meet (a random static or public address, never private).
            let ours = isInitiator ? context.initiatorAddress : context.responderAddress
            actions += [.send(.identityInformation(irk: context.identity.irk.bytes)),
                        .send(.identityAddressInformation(ours.bondIdentity))]
        }
        if keys.contains(.signingKey) {
            result.localCSRK = context.identity.csrk
            actions.append(.send(.signingInformation(csrk: context.identity.csrk.bytes)))
        }
        return actions
    }

    mutating func receiveKey(_ command: SMPCommand) -> [PairingAction] {
        expectedKeys.removeFirst()
        if let (name, key) = command.distributedKey, key.allSatisfy({ $0 == 0 }) {
            // A zero key is one anyone can use: an LTK encrypting for a stranger, a CSRK signing.
            // An all-zero IRK is HCI's "no IRK" (LE Add Device To Resolving List), which devices
            // without privacy send: it is dropped, so no address anyone makes resolves to the bond.
            guard case .identityInformation = command else {
                return fail(.invalidParameters, "\(peerName) distributed an all-zero \(name)")
            }
            return finishIfComplete()
        }
        switch command {
        case let .encryptionInformation(ltk):
            pendingPeerLTK = ltk
        case let .centralIdentification(ediv, rand):
            if let bytes = pendingPeerLTK, let key = Key128(bytes) {
                result.peerLTK = LongTermKeyRecord(key: key, ediv: ediv, rand: rand, keySize: keySize,
                                                   authenticated: result.properties.authenticated, secureConnections: false)
            }
        case let .identityInformation(irk):
            result.peerIRK = Key128(irk)
        case let .identityAddressInformation(address):
            // An identity address must be public or random static (top two bits 11): anything else is refused.
            if address.type.isRandom && address.address.littleEndianBytes[5] & 0xC0 != 0xC0 {
                return fail(.invalidParameters, "\(peerName)'s identity address \(address.address) is not a static random address")
            }
            result.peerIdentity = address
        case let .signingInformation(csrk):
            result.peerCSRK = Key128(csrk)
        default:
            break
        }
        return finishIfComplete()
    }

    /// Complete once the peer's keys are all in; the initiator sends its own only then.
    mutating func finishIfComplete() -> [PairingAction] {
        guard phase == .keyDistribution, expectedKeys.isEmpty else { return [] }
        let actions = ourKeysSent ? [] : sendOurKeys()
        phase = .done
        return actions + [.completed(result)]
    }

    /// An encryption attempt with the pairing's key failed (Encryption Change with an error).
    mutating func encryptionFailed(_ status: HCIStatus) -> [PairingAction] {
        guard phase == .encryption || phase == .keyDistribution else { return [] }
        phase = .done
        return [.failed(.unspecifiedReason, sent: false, detail: "encryption with the new key failed: \(status)")]
    }

    var isFinished: Bool { phase == .done }
}

extension SMPCommand {
    /// The key a key-distribution command carries, with its name.
    var distributedKey: (name: String, key: [UInt8])? {
        switch self {
        case let .encryptionInformation(ltk): return ("LTK", ltk)
        case let .identityInformation(irk): return ("IRK", irk)
        case let .signingInformation(csrk): return ("CSRK", csrk)
        default: return nil
        }
    }
}

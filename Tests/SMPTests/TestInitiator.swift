import BLECore
import SecurityToolbox
@testable import SMP

/// The central's side of pairing, computed with the toolbox, so tests check every value the
/// peripheral sends and send exactly what a correct central would.
struct TestInitiator {
    var features: PairingFeatures
    var address = SMPHarness.central
    var responderAddress = SMPHarness.ours
    var keyPair = SecureConnectionsKeyPair()
    var passkey: UInt32 = 0
    var na = SecureRandom.bytes(16)
    var mrand = SecureRandom.bytes(16)

    init(io: IOCapability = .noInputNoOutput, auth: AuthenticationRequirements = [.bonding, .secureConnections],
         maxKeySize: Int = 16, initiatorKeys: KeyDistribution = [.identityKey, .signingKey],
         responderKeys: KeyDistribution = [.encryptionKey, .identityKey, .signingKey]) {
        features = PairingFeatures(ioCapability: io, authentication: auth, maxKeySize: maxKeySize,
                                   initiatorKeys: initiatorKeys, responderKeys: responderKeys)
    }

    var preq: [UInt8] { SMPCommand.pairingRequest(features).encoded }
    var publicKeyPDU: [UInt8] { SMPCommand.pairingPublicKey(x: keyPair.publicKeyX, y: keyPair.publicKeyY).encoded }

    var ioCap: [UInt8] { [features.ioCapability.rawValue, features.oobDataPresent ? 1 : 0, features.authentication.rawValue] }

    static func ioCap(of pres: [UInt8]) -> [UInt8] { [pres[1], pres[2], pres[3]] }

    static func passkeyValue(_ passkey: UInt32) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: 16)
        r[0] = UInt8(truncatingIfNeeded: passkey)
        r[1] = UInt8(truncatingIfNeeded: passkey >> 8)
        r[2] = UInt8(truncatingIfNeeded: passkey >> 16)
        return r
    }

    static func tk(passkey: UInt32) -> [UInt8] { passkeyValue(passkey) }

    /// Legacy Mconfirm = c1(TK, Mrand, …).
    func legacyConfirm(pres: [UInt8], tk: [UInt8]) throws -> [UInt8] {
        try SecurityFunctions.c1(k: tk, r: mrand, preq: preq, pres: pres, initiator: address, responder: responderAddress)
    }

    /// The LE SC keys (MacKey, LTK) and both check values, once the nonces are known.
    func secureConnectionsChecks(peerX: [UInt8], peerY: [UInt8], nb: [UInt8], pres: [UInt8], r: [UInt8])
        throws -> (ltk: [UInt8], ea: [UInt8], eb: [UInt8]) {
        let dhKey = try keyPair.dhKey(peerX: peerX, peerY: peerY)
        let keys = try SecurityFunctions.f5(w: dhKey, n1: na, n2: nb, a1: address, a2: responderAddress)
        let ea = try SecurityFunctions.f6(w: keys.macKey, n1: na, n2: nb, r: r, ioCap: ioCap, a1: address, a2: responderAddress)
        let eb = try SecurityFunctions.f6(w: keys.macKey, n1: nb, n2: na, r: r, ioCap: Self.ioCap(of: pres),
                                          a1: responderAddress, a2: address)
        return (keys.ltk, ea, eb)
    }
}

extension Array where Element == UInt8 {
    /// The parameters after the SMP code.
    var parameters: [UInt8] { Array(dropFirst()) }
}

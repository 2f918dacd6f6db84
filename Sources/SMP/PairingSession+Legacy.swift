import BLECore
import Bonding
import HCI
import SecurityToolbox

/// Legacy pairing: confirm, random, STK (Core Vol 3 Part H 2.3.5.5). The responder answers each
/// of the initiator's values; the initiator's order is in `+Initiator`.
extension PairingSession {
    // MARK: Legacy pairing (2.3.5.5)

    /// Mconfirm or Sconfirm: c1(TK, random, …) over both sides' features and addresses.
    func legacyConfirmValue(random: [UInt8]) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityFunctions.c1(k: tk, r: random, preq: preq, pres: pres,
                                 initiator: context.initiatorAddress, responder: context.responderAddress)
    }

    /// Checks the peer's random against its confirm, then derives STK = s1(TK, Srand, Mrand);
    /// nil when the pairing may go on with the STK, else the failure.
    mutating func checkPeerRandomAndDeriveSTK(_ peerRandom: [UInt8]) -> [PairingAction]? {
        do {
            guard try legacyConfirmValue(random: peerRandom) == peerConfirm else {
                return fail(.confirmValueFailed, "\(peerName)'s confirm value does not match its random" +
                            (method == .justWorks ? "" : " (a wrong passkey?)"))
            }
            if isInitiator { srand = peerRandom } else { mrand = peerRandom }
            let stk = Self.masked(try SecurityFunctions.s1(k: tk, r1: srand, r2: mrand), to: keySize)
            encryptionKey = (stk, result.properties)
            phase = .encryption
            return nil
        } catch {
            return fail(.unspecifiedReason, "legacy key generation failed: \(error)")
        }
    }

    mutating func legacyConfirm(_ mconfirm: [UInt8]) -> [PairingAction] {
        peerConfirm = mconfirm
        do {
            let sconfirm = try legacyConfirmValue(random: srand)
            phase = .legacyRandom
            return [.send(.pairingConfirm(sconfirm))]
        } catch {
            return fail(.unspecifiedReason, "c1 failed: \(error)")
        }
    }

    mutating func legacyRandom(_ mrand: [UInt8]) -> [PairingAction] {
        if let failure = checkPeerRandomAndDeriveSTK(mrand) { return failure }
        return [.send(.pairingRandom(srand))]
    }
}

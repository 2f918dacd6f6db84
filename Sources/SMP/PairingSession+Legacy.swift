import BLECore
import Bonding
import HCI
import SecurityToolbox

/// Legacy pairing as responder: confirm, random, STK (Core Vol 3 Part H 2.3.5.5).
extension PairingSession {
    // MARK: Legacy pairing (2.3.5.5)

    mutating func legacyConfirm(_ mconfirm: [UInt8]) -> [PairingAction] {
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

    mutating func legacyRandom(_ mrand: [UInt8]) -> [PairingAction] {
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
}

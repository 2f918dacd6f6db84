import BLECore
import Bonding
import HCI
import SecurityToolbox
import Synchronization
import Testing
import TestSupport
@testable import SMP

/// The initiator against a misbehaving or silent peripheral, and one legacy exchange byte for byte
/// against the specification's c1 and s1 sample data (Core Vol 3 Part H 2.2.3, 2.2.4).
@Suite(.scaledTimeLimit(minutes: 1)) struct CentralRobustnessTests {
    @Test func aSilentPeripheralTimesThePairingOutAfter30Seconds() async throws {
        let b = try await BackToBack()
        b.wiring.state.withLock { $0.dropFromPeripheral = true }
        let (c, _) = b.connect()
        let pairing = Task { await CentralPairingTests.pairing(b, c) }
        await b.wire.wait(for: 1)
        b.clock.advance(by: .seconds(29))
        b.clock.advance(by: .seconds(1))
        #expect(await pairing.value == .failure(.timeout))
        // No more SMP on this connection (3.4), and no Pairing Failed was sent.
        await #expect(throws: SecurityError.timeout) { try await b.central.pair(c) }
        #expect(b.codes(fromCentral: true) == [0x01])
    }

    /// What the peripheral sends instead of its first PDU with this code, and the reason we fail with.
    @Test(arguments: [
        (UInt8(0x02), [UInt8]([0x02, 0x03, 0x00, 0x09, 0x10, 0x03]), PairingFailureReason.invalidParameters),      // short response
        (0x02, [0x02, 0x03, 0x00, 0x09, 0x06, 0x03, 0x07], .invalidParameters),                                     // key size 6
        (0x02, [0x02, 0x03, 0x00, 0x09, 0x07, 0x03, 0x07], .encryptionKeySize),                                     // 7 < our minimum 16
        (0x02, [0x02, 0x03, 0x00, 0x09, 0x10, 0x03, 0x0F], .invalidParameters),                                     // the link key: not offered
        (0x0C, [0x0C] + [UInt8](repeating: 1, count: 63), .invalidParameters),                                      // short public key
        (0x0C, [0x0C] + [UInt8](repeating: 1, count: 64), .invalidParameters),                                      // not on the curve
        (0x0C, [0x04] + [UInt8](repeating: 1, count: 16), .unspecifiedReason),                                      // out of order
        (0x0C, [0x20], .commandNotSupported),                                                                        // unknown code
        (0x0C, [0x01, 0x03, 0x00, 0x09, 0x10, 0x03, 0x07], .commandNotSupported),                                   // a request to the initiator
    ])
    func badInputFromThePeripheralFailsThePairing(match: UInt8, replacement: [UInt8], reason: PairingFailureReason) async throws {
        let b = try await BackToBack()
        b.wiring.state.withLock { $0.replaceNextFromPeripheral = (match, replacement) }
        let (c, _) = b.connect()
        let outcome = await CentralPairingTests.pairing(b, c)
        guard case let .failure(.pairingFailed(got, _)) = outcome else {
            Issue.record("expected a pairing failure, got \(outcome)")
            return
        }
        #expect(got == reason)
        #expect(b.wire.all.last(where: { $0.fromCentral })?.pdu == [0x05, reason.code])
        #expect(b.encryptions.all.isEmpty)
    }

    @Test func aPeripheralsPairingFailedEndsOurPairing() async throws {
        let b = try await BackToBack(peripheralAgent: TestAgent { $0.decision = .refuse(.pairingNotSupported, because: "closed") })
        let (c, _) = b.connect()
        #expect(await CentralPairingTests.pairing(b, c) == .failure(.pairingFailed(.pairingNotSupported, detail: "the peripheral ended pairing")))
        #expect(b.codes(fromCentral: true) == [0x01], "no Pairing Failed for a Pairing Failed")
    }

    @Test func aSecurityRequestIsReportedAndMetByPairing() async throws {
        let b = try await BackToBack(peripheralPolicy: { $0.sendSecurityRequest = true })
        let (c, _) = b.connect()
        await b.centralEvents.wait(where: { if case .securityRequested = $0 { return true }; return false })
        _ = try #require(await b.peripheralPaired())
        #expect(b.codes(fromCentral: false).first == 0x0B && b.central.bond(for: BackToBack.peripheralAddress) != nil)
        #expect(c.isBonded)
    }

    // MARK: Byte for byte

    static func wire(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes.reversed()
    }

    /// The sample's devices: initiator A1:A2:A3:A4:A5:A6 (random), responder B1:…:B6 (public),
    /// preq 0x07071000000101, pres 0x05000800000302, TK zero (Just Works).
    static func sampleSession(randoms: [[UInt8]]) -> PairingSession {
        var policy = SecurityPolicy()
        policy.minimumKeySize = 7
        let queue = Queue(randoms)
        let context = PairingContext(
            initiatorAddress: DeviceAddress(BluetoothAddress("A1:A2:A3:A4:A5:A6")!, type: .randomDevice),
            responderAddress: DeviceAddress(BluetoothAddress("B1:B2:B3:B4:B5:B6")!, type: .publicDevice),
            policy: policy, identity: LocalIdentity(irk: Key128([UInt8](repeating: 1, count: 16))!, address: BluetoothAddress("C0:00:00:00:00:01")!,
                                                    csrk: Key128([UInt8](repeating: 2, count: 16))!),
            randomBytes: { queue.next($0) })
        let request = PairingFeatures(ioCapability: .displayYesNo, authentication: [], maxKeySize: 16,
                                      initiatorKeys: KeyDistribution(rawValue: 7), responderKeys: KeyDistribution(rawValue: 7))
        return PairingSession(initiatingWith: request, context: context)
    }

    static let pres = wire("05000800000302")

    @Test func legacyInitiatorExchangeMatchesTheSpecificationSamples() throws {
        // c1: Mrand is the sample's r, so Mconfirm is the sample's confirm value.
        var first = Self.sampleSession(randoms: [Self.wire("5783D52156AD6F0E6388274EC6702EE0")])
        #expect(first.begin() == [.send(.pairingRequest(first.request))])
        #expect(first.preq == Self.wire("07071000000101"))
        #expect(first.receive(try SMPCommand(decoding: Self.pres)) ==
                [.started(.justWorks), .send(.pairingConfirm(Self.wire("1e1e3fef878988ead2a74dc5bef13b86")))])

        // s1: Mrand and Srand are the sample's r2 and r1; the STK is the sample's, cut to the 8 octets of pres.
        let mrand = Self.wire("010203040506070899AABBCCDDEEFF00"), srand = Self.wire("000F0E0D0C0B0A091122334455667788")
        var second = Self.sampleSession(randoms: [mrand])
        _ = second.begin()
        _ = second.receive(try SMPCommand(decoding: Self.pres))
        let sconfirm = try SecurityFunctions.c1(k: [UInt8](repeating: 0, count: 16), r: srand, preq: second.preq, pres: Self.pres,
                                                initiator: second.context.initiatorAddress, responder: second.context.responderAddress)
        #expect(second.receive(.pairingConfirm(sconfirm)) == [.send(.pairingRandom(mrand))])
        let stk = Array(Self.wire("9a1fe1f0e8b0f49b5b4216ae796da062")[0..<8]) + [UInt8](repeating: 0, count: 8)
        #expect(second.receive(.pairingRandom(srand)) ==
                [.startEncryption(key: stk, properties: EncryptionKeyProperties(keySize: 8, authenticated: false, secureConnections: false))])
        // A Srand that does not open Sconfirm fails the pairing.
        var third = Self.sampleSession(randoms: [mrand])
        _ = third.begin()
        _ = third.receive(try SMPCommand(decoding: Self.pres))
        _ = third.receive(.pairingConfirm(sconfirm))
        #expect(third.receive(.pairingRandom(mrand)).first == .send(.pairingFailed(.confirmValueFailed)))
    }
}

/// Fixed random values, handed out in order (zeros once they run out).
final class Queue: Sendable {
    private let values: Mutex<[[UInt8]]>
    init(_ values: [[UInt8]]) { self.values = Mutex(values) }
    func next(_ count: Int) -> [UInt8] {
        values.withLock { $0.isEmpty ? [UInt8](repeating: 0, count: count) : $0.removeFirst() }
    }
}

import BLECore
import Bonding
import HCI
import SecurityToolbox
import Testing
import TestSupport
@testable import SMP

/// Our initiator against our responder (Core Vol 3 Part H 2.3, 3.6): methods, key distribution,
/// bonds on both sides and re-encryption from them.
@Suite(.scaledTimeLimit(minutes: 1)) struct CentralPairingTests {
    static func legacy(_ configuration: inout SecurityManager.Configuration) { configuration.policy.secureConnections = false }

    @Test func secureConnectionsJustWorksBondsBothSidesWithTheSameLTK() async throws {
        let b = try await BackToBack()
        let (c, _) = b.connect()
        let result = try await b.central.pair(c)
        #expect(result.method == .justWorks && result.secureConnections && result.bonding && result.keySize == 16)
        #expect(result.peerIdentity == BackToBack.peripheralAddress && result.peerIRK == b.peripheral.localIdentity?.irk)
        #expect(result.peerCSRK == b.peripheral.localIdentity?.csrk)
        let (theirs, bonded) = try #require(await b.peripheralPaired())
        #expect(bonded && theirs.peerIdentity == BackToBack.centralAddress && theirs.peerIRK == b.central.localIdentity?.irk)
        // The initiator sends its public key first, Na after Cb, Ea; the responder's keys come first.
        #expect(b.codes(fromCentral: true) == [0x01, 0x0C, 0x04, 0x0D, 0x08, 0x09, 0x0A])
        #expect(b.codes(fromCentral: false) == [0x02, 0x0C, 0x03, 0x04, 0x0D, 0x08, 0x09, 0x0A])
        let ours = try #require(await b.centralStore.bond(for: BackToBack.peripheralAddress))
        let peers = try #require(await b.peripheralStore.bond(for: BackToBack.centralAddress))
        #expect(ours.ltk == peers.ltk && ours.ltk?.secureConnections == true && ours.ltk?.ediv == 0 && ours.ltk?.rand == 0)
        #expect(ours.keyAsCentral == ours.ltk && ours.peerIRK == b.peripheral.localIdentity?.irk)
        let encryption = try #require(b.encryptions.all.first)
        #expect(encryption.0 == ours.ltk?.key.bytes && encryption.1 == 0 && encryption.2 == 0)
    }

    @Test func aNewConnectionReEncryptsFromTheBondWithoutPairing() async throws {
        let b = try await BackToBack()
        _ = try await b.central.pair(b.connect().central)
        _ = try #require(await b.peripheralPaired())
        let before = b.wire.all.count
        let (c, p) = b.connect()
        #expect(c.isBonded)
        let security = try await b.central.encrypt(c)
        #expect(security == LinkSecurity(level: .unauthenticated, keySize: 16))
        #expect(b.wire.all.count == before, "no SMP on re-encryption")
        #expect(b.peripheral.isProvenBonded(p) && b.central.isProvenBonded(c))
    }

    @Test func legacyJustWorksEncryptsWithTheSTKThenWithThePeripheralsLTK() async throws {
        let b = try await BackToBack(centralPolicy: Self.legacy)
        let (c, _) = b.connect()
        let result = try await b.central.pair(c)
        #expect(result.method == .justWorks && !result.secureConnections)
        _ = try #require(await b.peripheralPaired())
        #expect(b.codes(fromCentral: true) == [0x01, 0x03, 0x04, 0x06, 0x07, 0x08, 0x09, 0x0A])
        #expect(b.codes(fromCentral: false) == [0x02, 0x03, 0x04, 0x06, 0x07, 0x08, 0x09, 0x0A])
        let ours = try #require(await b.centralStore.bond(for: BackToBack.peripheralAddress))
        let peers = try #require(await b.peripheralStore.bond(for: BackToBack.centralAddress))
        // Each side's distributed key is the other's peer key.
        #expect(ours.peerLTK == peers.ltk && ours.ltk == peers.peerLTK && ours.keyAsCentral == peers.ltk)
        let stk = try #require(b.encryptions.all.first)
        #expect(stk.1 == 0 && stk.2 == 0 && stk.0 != peers.ltk?.key.bytes)

        let (again, _) = b.connect()
        #expect(try await b.central.encrypt(again) == LinkSecurity(level: .unauthenticated, keySize: 16))
        let reEncryption = try #require(b.encryptions.all.last)
        #expect(reEncryption.0 == peers.ltk?.key.bytes && reEncryption.1 == peers.ltk?.rand && reEncryption.2 == peers.ltk?.ediv)
    }

    @Test func aPeripheralThatLostTheBondAnswersKeyMissingAndOurBondIsKept() async throws {
        let b = try await BackToBack()
        _ = try await b.central.pair(b.connect().central)
        _ = try #require(await b.peripheralPaired())
        #expect(try await b.peripheral.removeBond(BackToBack.centralAddress))
        let (c, _) = b.connect()
        await #expect(throws: SecurityError.keyMissing(BackToBack.peripheralAddress)) { try await b.central.encrypt(c) }
        #expect(b.central.bond(for: BackToBack.peripheralAddress) != nil)
        #expect(await b.centralStore.bond(for: BackToBack.peripheralAddress) != nil)
    }

    @Test func encryptingWithoutABondIsRefused() async throws {
        let b = try await BackToBack()
        let (c, p) = b.connect()
        await #expect(throws: SecurityError.notBonded(BackToBack.peripheralAddress)) { try await b.central.encrypt(c) }
        await #expect(throws: SecurityError.notCentral(p.id)) { try await b.peripheral.pair(p) }
        #expect(b.encryptions.all.isEmpty)
    }

    @Test(arguments: [true, false]) func numericComparisonAsksBothUsersTheSameNumber(_ confirms: Bool) async throws {
        let b = try await BackToBack(centralAgent: TestAgent { $0.comparisonAnswer = confirms ? .confirmedByPerson : .rejected },
                                     centralPolicy: { $0.policy.ioCapability = .displayYesNo },
                                     peripheralPolicy: { $0.policy.ioCapability = .displayYesNo })
        let (c, _) = b.connect()
        let outcome = await Self.pairing(b, c)
        if confirms {
            let result = try outcome.get()
            #expect(result.method == .numericComparison && result.properties.level == .authenticatedSecureConnections)
            _ = try #require(await b.peripheralPaired())
            let shown = b.centralAgent.state.withLock { $0.compared }
            #expect(shown.count == 1 && shown == b.peripheralAgent.state.withLock { $0.compared })
        } else {
            #expect(outcome == .failure(.pairingFailed(.numericComparisonFailed, detail: "the numbers were not confirmed as equal")))
            #expect(await BackToBack.failure(in: b.peripheralEvents) == .numericComparisonFailed)
        }
    }

    /// Passkey Entry in both directions (who displays) and both pairing kinds.
    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func passkeyEntry(_ centralDisplays: Bool, _ secureConnections: Bool) async throws {
        let passkey: UInt32 = 123_456
        let b = try await BackToBack(
            centralAgent: TestAgent { $0.typedPasskey = passkey }, peripheralAgent: TestAgent { $0.typedPasskey = passkey },
            centralPolicy: {
                $0.policy.ioCapability = centralDisplays ? .displayOnly : .keyboardOnly
                $0.policy.passkey = .fixed(passkey)
                $0.policy.secureConnections = secureConnections
            },
            peripheralPolicy: {
                $0.policy.ioCapability = centralDisplays ? .keyboardOnly : .displayOnly
                $0.policy.passkey = .fixed(passkey)
            })
        let (c, _) = b.connect()
        let result = try await b.central.pair(c)
        #expect(result.method == .passkeyEntry(responderDisplays: !centralDisplays, initiatorDisplays: centralDisplays))
        #expect(result.secureConnections == secureConnections && result.properties.authenticated)
        #expect((centralDisplays ? b.centralAgent : b.peripheralAgent).state.withLock { $0.displayed } == [passkey])
        _ = try #require(await b.peripheralPaired())
        if secureConnections {
            // 20 rounds of Confirm and Random from each side.
            #expect(b.codes(fromCentral: true).filter { $0 == 0x03 }.count == 20)
        }
    }

    @Test(arguments: [true, false]) func aWrongPasskeyFailsTheConfirmValueOnBothSides(_ secureConnections: Bool) async throws {
        let b = try await BackToBack(
            centralAgent: TestAgent { $0.typedPasskey = 111_111 },
            centralPolicy: { $0.policy.ioCapability = .keyboardOnly; $0.policy.secureConnections = secureConnections },
            peripheralPolicy: { $0.policy.ioCapability = .displayOnly; $0.policy.passkey = .fixed(123_456) })
        let (c, _) = b.connect()
        let outcome = await Self.pairing(b, c)
        guard case .failure(.pairingFailed(.confirmValueFailed, _)) = outcome else {
            Issue.record("expected Confirm Value Failed, got \(outcome)")
            return
        }
        #expect(await BackToBack.failure(in: b.peripheralEvents) == .confirmValueFailed)
        let centralBonds = await b.centralStore.bonds(), peripheralBonds = await b.peripheralStore.bonds()
        #expect(centralBonds.isEmpty && peripheralBonds.isEmpty)
    }

    /// Our central meets a hostile peripheral that distributes the identity of a sensor we are bonded
    /// with: the pairing fails and our bond with the real sensor is untouched, as on the peripheral side.
    @Test func aPeripheralNamingABondedSensorsIdentityCannotTakeOverItsBond() async throws {
        let sensor = DeviceAddress(BluetoothAddress("C3:00:00:00:00:03")!, type: .randomDevice)
        let sensors = BondPolicyTests.bond(sensor)
        let b = try await BackToBack(centralBonds: [sensors])
        b.wiring.state.withLock { $0.replaceNextFromPeripheral = (match: 0x09, with: [0x09, 0x01] + sensor.address.littleEndianBytes) }
        let (c, _) = b.connect()
        guard case let .failure(error) = await Self.pairing(b, c) else {
            Issue.record("a peripheral took over the bond of \(sensor)")
            return
        }
        #expect("\(error)".contains("did not prove"))
        #expect(await b.centralEvents.wait { if case .bondTakeoverRefused(_, sensor) = $0 { return true }; return false })
        #expect(b.wire.all.contains { $0.fromCentral && $0.pdu == [0x05, 0x03] })
        #expect(await b.centralStore.bonds() == [sensors])
        #expect(b.central.bond(for: sensor)?.ltk == sensors.ltk)
        #expect(c.identity == BackToBack.peripheralAddress && !c.isBonded)

        // The real sensor, encrypting with the stored key, is still the bonded one.
        #expect(await b.centralStore.bond(for: BackToBack.peripheralAddress) == nil)
    }

    static func pairing(_ b: BackToBack, _ link: Link) async -> Result<PairingResult, SecurityError> {
        do throws(SecurityError) { return .success(try await b.central.pair(link)) } catch { return .failure(error) }
    }
}

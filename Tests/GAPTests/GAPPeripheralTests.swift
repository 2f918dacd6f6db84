import BLECore
import HCI
import Synchronization
import Testing
import TestSupport
import VirtualController
@testable import GAP

/// GAP's events as they come, with barriers (`Recorder`) and the predicates tests wait on.
enum GAPEventLog {
    static func recording(_ gap: GAPPeripheral) -> Recorder<GAPEvent> {
        let recorder = Recorder<GAPEvent>()
        Task {
            for await event in gap.events { recorder.append(event) }
            recorder.finish()
        }
        return recorder
    }

    static let started: @Sendable (GAPEvent) -> Bool = { if case .advertisingStarted = $0 { return true } else { return false } }
    static let stopped: @Sendable (GAPEvent) -> Bool = { if case .advertisingStopped = $0 { return true } else { return false } }
    static let connected: @Sendable (GAPEvent) -> Bool = { if case .connected = $0 { return true } else { return false } }
    static let disconnected: @Sendable (GAPEvent) -> Bool = { if case .disconnected = $0 { return true } else { return false } }
    static let recovered: @Sendable (GAPEvent) -> Bool = { if case .controllerRecovered = $0 { return true } else { return false } }
    static let resetting: @Sendable (GAPEvent) -> Bool = { if case .controllerResetting = $0 { return true } else { return false } }
}

/// A daemon-like stack on a virtual radio: host, GAP peripheral, and scripted centrals.
struct PeripheralFixture {
    let radio = VirtualRadio(label: "gap-tests")
    let controller: VirtualController
    let host: HCIHost
    let gap: GAPPeripheral
    let log: Recorder<GAPEvent>
    let address = BluetoothAddress("C4:11:22:33:44:55")!

    init(maxConnections: Int = 1, completion: VirtualController.CompletionPolicy = .immediate, bufferCount: UInt8 = 8,
         fastAdvertising: FastAdvertising? = nil, advertisesTxPowerLevel: Bool = false, clock: ManualClock = ManualClock(),
         configureController: (inout VirtualController.Configuration) -> Void = { _ in }) async throws {
        var controllerConfiguration = VirtualController.Configuration(address: BluetoothAddress("00:1B:DC:00:00:01")!,
                                                                      aclBufferSize: 27, aclBufferCount: bufferCount,
                                                                      inboundFragmentSize: 27, completionPolicy: completion)
        configureController(&controllerConfiguration)
        controller = radio.makeController(configuration: controllerConfiguration)
        // Virtual time: no host timeout can fire on a busy test machine unless a test moves it.
        var configuration = HCIHost.Configuration()
        configuration.clock = clock
        host = HCIHost(transport: controller, configuration: configuration)
        _ = try await host.start()
        gap = GAPPeripheral(host: host, configuration: .init(addressPolicy: .randomStatic(address), maxConnections: maxConnections,
                                                             fastAdvertising: fastAdvertising, advertisesTxPowerLevel: advertisesTxPowerLevel))
        log = GAPEventLog.recording(gap)
        try await gap.start()
    }

    var identity: DeviceAddress { DeviceAddress(address, type: .randomDevice) }

    func central(_ last: UInt8) -> VirtualCentral {
        radio.makeCentral(address: centralAddress(last))
    }

    func centralAddress(_ last: UInt8) -> DeviceAddress {
        DeviceAddress(BluetoothAddress(littleEndian: [last, 0, 0, 0, 0, 0xC1]), type: .randomDevice)
    }

    /// Connects a central and waits until the peripheral's host reported the `n`-th connection.
    func connect(_ last: UInt8, expecting connections: Int) async throws -> VirtualLink {
        let link = try await central(last).connect(to: identity)
        await log.wait(for: connections, where: GAPEventLog.connected)
        return link
    }

    /// The only central leaves: advertising comes back by itself (its second start), then the host stops.
    func disconnectAndExpectAdvertisingAgain(_ link: VirtualLink) async {
        link.disconnect()
        await log.wait(for: 1, where: GAPEventLog.disconnected)
        await log.wait(for: 2, where: GAPEventLog.started)
        #expect(controller.isAdvertisingOnRadio)
        await host.shutdown()
    }

    /// The controller settled: GAP's driver ran and the radio agrees with what GAP believes.
    func advertisingAgrees() async -> Bool {
        await gap.isAdvertising == controller.isAdvertisingOnRadio
    }
}

@Suite(.scaledTimeLimit(minutes: 2)) struct GAPPeripheralTests {
    @Test func advertisesWithScanResponseSeenByACentral() async throws {
        let fixture = try await PeripheralFixture()
        let plan = try await fixture.gap.startAdvertising(AdvertisingContent(localName: "Environment-Sensor-12", serviceUUIDs: [BluetoothUUID(0x181A)]))
        let identity = fixture.identity
        let heard = await fixture.central(1).scan(until: { $0.address == identity })
        #expect(heard.advertisingData == plan.advertisingData)
        #expect(heard.scanResponseData == plan.scanResponseData)
        #expect(heard.connectable)
        await fixture.host.shutdown()
    }

    @Test func theControllersTxPowerLevelIsAdvertisedWhenAskedFor() async throws {
        let fixture = try await PeripheralFixture(advertisesTxPowerLevel: true) { $0.txPower = -7 }
        let plan = try await fixture.gap.startAdvertising(AdvertisingContent(localName: "Sensor", serviceUUIDs: [BluetoothUUID(0x181A)]))
        #expect(plan.advertisingData.suffix(3) == [0x02, 0x0A, 0xF9])
        let identity = fixture.identity
        let heard = await fixture.central(1).scan(until: { $0.address == identity })
        #expect(AdvertisementData(decoding: heard.advertisingData).txPowerLevel == -7)
        await fixture.host.shutdown()
    }

    @Test func txPowerLevelIsOffByDefaultAndNeverPushesContentOut() async throws {
        let plain = try await PeripheralFixture() { $0.txPower = -7 }
        let content = AdvertisingContent(localName: "Sensor", serviceUUIDs: [BluetoothUUID(0x181A)])
        #expect(try await plain.gap.startAdvertising(content) == AdvertisingPlanner.plan(content))
        await plain.host.shutdown()
        // A shortened name fills the scan response: no room, so the plan is the caller's alone.
        let full = try await PeripheralFixture(advertisesTxPowerLevel: true) { $0.txPower = -7 }
        let crowded = AdvertisingContent(localName: "blesensor-greenhouse-north-wing-7",
                                         serviceUUIDs: (0..<14).map { BluetoothUUID(UInt16(0x1800 + $0)) })
        #expect(try await full.gap.startAdvertising(crowded) == AdvertisingPlanner.plan(crowded))
        await full.host.shutdown()
    }

    /// Broadcast data changes every poll: the data is replaced while advertising, never by a restart.
    @Test func broadcastServiceDataIsUpdatedWithoutInterruptingAdvertising() async throws {
        let fixture = try await PeripheralFixture()
        let content = AdvertisingContent(localName: "blesensor", serviceUUIDs: [BluetoothUUID(0x181A)])
        #expect(try await fixture.gap.setBroadcastServiceData([.init(uuid: BluetoothUUID(0xFCD2), data: [0x40, 0x00, 0x01])]) == nil)
        let first = try await fixture.gap.startAdvertising(content)
        #expect(first.advertisingData.hexString == "020106" + "0616d2fc400001" + "03031a18" + "0a09" + Array("blesensor".utf8).hexString)
        let identity = fixture.identity
        for packetID in UInt8(2)...4 {
            let plan = try #require(try await fixture.gap.setBroadcastServiceData([.init(uuid: BluetoothUUID(0xFCD2), data: [0x40, 0x00, packetID])]))
            let heard = await fixture.central(1).scan(until: { $0.address == identity && $0.advertisingData == plan.advertisingData })
            #expect(AdvertisementData(decoding: heard.advertisingData).serviceData[BluetoothUUID(0xFCD2)] == [0x40, 0x00, packetID])
        }
        #expect(fixture.log.count(where: GAPEventLog.started) == 1)
        #expect(fixture.log.count(where: GAPEventLog.stopped) == 0)
        #expect(await fixture.advertisingAgrees())
        // Advertising again keeps the broadcast.
        let again = try await fixture.gap.startAdvertising(content)
        #expect(AdvertisementData(decoding: again.advertisingData).serviceData[BluetoothUUID(0xFCD2)] == [0x40, 0x00, 4])
        await fixture.host.shutdown()
    }

    /// Every slot taken: phones cannot connect, but a receiver that never connects still gets readings.
    @Test func aBroadcastGoesOnNotConnectableWhileEverySlotIsTaken() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 1)
        let uuid = BluetoothUUID(0xFCD2)
        try await fixture.gap.setBroadcastServiceData([.init(uuid: uuid, data: [0x40, 0x00, 0x01])])
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let link = try await fixture.connect(1, expecting: 1)
        // An update runs the driver to the end (the barrier).
        let plan = try #require(try await fixture.gap.setBroadcastServiceData([.init(uuid: uuid, data: [0x40, 0x00, 0x02])]))
        let identity = fixture.identity
        let heard = await fixture.central(2).scan(until: { $0.address == identity && $0.advertisingData == plan.advertisingData })
        #expect(!heard.connectable)
        #expect(await fixture.gap.isAdvertising)
        #expect(fixture.log.count(where: GAPEventLog.started) == 1)
        // The central leaves: connectable advertising again.
        await fixture.disconnectAndExpectAdvertisingAgain(link)
    }

    @Test func aControllerThatCannotAdvertiseConnectablyBesideALinkStillBroadcasts() async throws {
        // States without connectable advertising beside a peripheral link (bit 38), with bit 20.
        let fixture = try await PeripheralFixture(maxConnections: 2) {
            $0.leStates = LESupportedStates(rawValue: 0x3F_FFFF_FFFF)
        }
        let uuid = BluetoothUUID(0xFCD2)
        try await fixture.gap.setBroadcastServiceData([.init(uuid: uuid, data: [0x40, 0x00, 0x01])])
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let link = try await fixture.connect(1, expecting: 1)
        let plan = try #require(try await fixture.gap.setBroadcastServiceData([.init(uuid: uuid, data: [0x40, 0x00, 0x02])]))
        let identity = fixture.identity
        let heard = await fixture.central(2).scan(until: { $0.address == identity && $0.advertisingData == plan.advertisingData })
        #expect(!heard.connectable)
        await fixture.disconnectAndExpectAdvertisingAgain(link)
    }

    @Test func noBroadcastBesideALinkWhereTheStatesForbidIt() async throws {
        // Every state combination but bit 20, non-connectable advertising beside a peripheral link.
        let fixture = try await PeripheralFixture(maxConnections: 1) {
            $0.leStates = LESupportedStates(rawValue: 0x3F_FFFF_FFFF & ~LESupportedStates.nonConnectableAdvertisingWhilePeripheral)
        }
        try await fixture.gap.setBroadcastServiceData([.init(uuid: BluetoothUUID(0xFCD2), data: [0x40, 0x00, 0x01])])
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let link = try await fixture.connect(1, expecting: 1)
        try await fixture.gap.setBroadcastServiceData([.init(uuid: BluetoothUUID(0xFCD2), data: [0x40, 0x00, 0x02])])
        #expect(!fixture.controller.isAdvertisingOnRadio)
        #expect(await !fixture.gap.isAdvertising)
        await fixture.disconnectAndExpectAdvertisingAgain(link)
    }

    @Test func advertisingResumesAfterDisconnectionAndPausesWhenSlotsAreFull() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 2)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let first = try await fixture.connect(1, expecting: 1)
        // One slot left: advertising comes back by itself.
        await fixture.log.wait(for: 2, where: GAPEventLog.started)
        #expect(fixture.controller.isAdvertisingOnRadio)
        let second = try await fixture.connect(2, expecting: 2)
        // Both slots used: the controller stopped for the connection and the driver leaves it off
        // (asking again runs the driver to the end: the barrier).
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        #expect(!fixture.controller.isAdvertisingOnRadio)
        #expect(await !fixture.gap.isAdvertising)
        second.disconnect()
        await fixture.log.wait(for: 1, where: GAPEventLog.disconnected)
        await fixture.log.wait(for: 3, where: GAPEventLog.started)
        #expect(fixture.controller.isAdvertisingOnRadio)
        first.disconnect()
        await fixture.host.shutdown()
    }

    @Test func aControllerWhoseStatesForbidItDoesNotAdvertiseBesideALink() async throws {
        // LE Supported States without connectable advertising beside a peripheral link.
        let fixture = try await PeripheralFixture(maxConnections: 2) {
            $0.leStates = LESupportedStates(rawValue: 0x3F_FFFF_FFFF)
            $0.advertisesWhileConnected = false
        }
        #expect(await fixture.host.controllerInfo?.limitations == [.cannotAdvertiseWhileConnected])
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let first = try await fixture.connect(1, expecting: 1)
        // Asking again runs the driver to the end (the barrier): it leaves advertising off and
        // never asks the controller, which would refuse.
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        #expect(!fixture.controller.isAdvertisingOnRadio)
        #expect(fixture.controller.advertisingEnablesRefused == 0)
        #expect(!fixture.gap.advertisesBesideLinks)
        await fixture.disconnectAndExpectAdvertisingAgain(first)
    }

    @Test func aRefusalBesideALinkIsHeardOnceAndAdvertisingResumesOnDisconnect() async throws {
        // States that claim the combination, a controller that refuses it anyway.
        let fixture = try await PeripheralFixture(maxConnections: 3) { $0.advertisesWhileConnected = false }
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let first = try await fixture.connect(1, expecting: 1)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        #expect(fixture.controller.advertisingEnablesRefused == 1)
        // More events (new content, the central's traffic) do not make it ask again: no retry storm.
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "T"))
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        #expect(fixture.controller.advertisingEnablesRefused == 1)
        #expect(!fixture.controller.isAdvertisingOnRadio)
        #expect(!fixture.gap.advertisesBesideLinks)
        await fixture.disconnectAndExpectAdvertisingAgain(first)
    }

    @Test func advertisesFastForThirtySecondsAfterStartAndAfterEachDisconnection() async throws {
        let clock = ManualClock()
        let fixture = try await PeripheralFixture(maxConnections: 1, fastAdvertising: .apple, clock: clock)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        #expect(fixture.controller.advertisingIntervalMin == 32)   // 20 ms
        clock.advance(by: .milliseconds(29_999))
        #expect(fixture.controller.advertisingIntervalMin == 32)
        clock.advance(by: .milliseconds(1))
        // The driver switches in the background; asking again runs it to the end (the barrier).
        await until { fixture.controller.advertisingIntervalMin == 160 && fixture.controller.isAdvertisingOnRadio }
        await until { await fixture.gap.isAdvertising }
        // The switch is not a new start.
        #expect(fixture.log.count(where: GAPEventLog.started) == 1)
        let central = try await fixture.connect(1, expecting: 1)
        central.disconnect()
        await fixture.log.wait(for: 2, where: GAPEventLog.started)
        #expect(fixture.controller.advertisingIntervalMin == 32)
        clock.advance(by: .seconds(30))
        await until { fixture.controller.advertisingIntervalMin == 160 && fixture.controller.isAdvertisingOnRadio }
        #expect(fixture.log.count(where: GAPEventLog.started) == 2)
        await fixture.host.shutdown()
    }

    @Test func advertisingComesBackAfterALostReplyWithoutWaitingForAConnection() async throws {
        let clock = ManualClock()
        let fixture = try await PeripheralFixture(maxConnections: 1, clock: clock)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let first = try await fixture.connect(1, expecting: 1)
        // The re-enable after the central leaves loses its reply: the host times out after 2 s and
        // takes the slot back; nothing else happens on the radio, so GAP must try again by itself.
        fixture.controller.failNextCommand(opcode: .leSetAdvertisingEnable)
        first.disconnect()
        await fixture.log.wait(for: 1, where: GAPEventLog.disconnected)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(2))
        #expect(!fixture.controller.isAdvertisingOnRadio)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(1))
        await until { fixture.controller.isAdvertisingOnRadio }
        await fixture.log.wait(for: 2, where: GAPEventLog.started)
        await fixture.host.shutdown()
    }

    @Test func controllerFaultResetsAndRestoresAdvertising() async throws {
        let fixture = try await PeripheralFixture()
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        _ = try await fixture.connect(1, expecting: 1)
        fixture.controller.injectHardwareError(code: 0x11)
        // Reset drops the link; the peripheral reports it and advertises again.
        await fixture.log.wait(for: 1, where: GAPEventLog.disconnected)
        await fixture.log.wait(for: 1, where: GAPEventLog.recovered)
        await fixture.log.wait(for: 2, where: GAPEventLog.started)
        #expect(fixture.gap.activeLinks.isEmpty)
        #expect(fixture.controller.isAdvertisingOnRadio)
        // Heard again: a scan that waits for it, bounded by the suite's time limit.
        let identity = fixture.identity
        #expect(await fixture.central(2).scan(until: { $0.address == identity }).address == identity)
        await fixture.host.shutdown()
    }

    @Test func hostNeverExceedsControllerCreditsUnderBackpressure() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 2, completion: .manual, bufferCount: 4)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let slow = try await fixture.connect(1, expecting: 1)
        let healthy = try await fixture.connect(2, expecting: 2)
        let links = fixture.gap.activeLinks
        let slowLink = try #require(links.first { $0.peer == fixture.centralAddress(1) })
        let healthyLink = try #require(links.first { $0.peer == fixture.centralAddress(2) })
        let pdu: [UInt8] = [60, 0, 0x04, 0x00] + [UInt8](repeating: 0xEE, count: 60)   // 64 bytes → 3 fragments
        for _ in 0..<10 {
            try fixture.host.acl.enqueue(pdu, on: slowLink)
            try fixture.host.acl.enqueue(pdu, on: healthyLink)
        }
        #expect(fixture.host.acl.packetsInFlight == 4)
        #expect(fixture.host.acl.packetsInFlight(on: slowLink) <= 3)
        // Release only the healthy central's packets, as if the slow one had gone quiet: whenever
        // the host has put some in the controller (the barrier), complete them, until all 30
        // fragments of its 10 PDUs went.
        let controller = fixture.controller
        var completed = 0
        while completed < 30 {
            await controller.waitForPackets(on: healthyLink.handle)
            let held = controller.packetsInBuffer[healthyLink.handle] ?? 0
            controller.completePackets(handle: healthyLink.handle, count: held)
            completed += held
        }
        var delivered: [[UInt8]] = []
        var iterator = healthy.received.makeAsyncIterator()
        while delivered.count < 10, let next = await iterator.next() { delivered.append(next) }
        #expect(delivered.count == 10)
        #expect(delivered.allSatisfy { $0 == pdu })
        #expect(fixture.controller.creditViolations == 0)
        #expect(fixture.controller.maxBuffersInUse <= 4)
        // Disconnecting the stalled central gives its credits back.
        slow.disconnect()
        await fixture.log.wait(for: 1, where: GAPEventLog.disconnected)
        #expect(fixture.host.acl.statistics.creditsReclaimed > 0)
        #expect(fixture.host.acl.packetsInFlight <= 1)
        await fixture.host.shutdown()
    }
}

/// The advertising driver against the races the review found (its answers held back by the
/// controller so the race happens every time, not by chance).
@Suite struct AdvertisingDriverRaceTests {
    @Test func aConnectionWhileEnableIsInFlightLeavesNoGhostAdvertising() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 1)
        fixture.controller.holdAnswers(to: .leSetAdvertisingEnable)
        let starting = Task { try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S")) }
        await fixture.controller.waitForHeldAnswer()
        // The controller advertises already; a central connects before the host hears back.
        let link = try await fixture.connect(1, expecting: 1)
        fixture.controller.releaseHeldAnswers()
        _ = try await starting.value
        // One slot, used: neither the radio nor GAP may think advertising is on (asking again runs
        // the driver to the end).
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        #expect(!fixture.controller.isAdvertisingOnRadio)
        #expect(await !fixture.gap.isAdvertising)
        // When the slot frees up, advertising resumes (the driver still wants it); the first enable
        // never counted as started, since the connection overtook it.
        link.disconnect()
        await fixture.log.wait(for: 1, where: GAPEventLog.disconnected)
        await fixture.log.wait(for: 1, where: GAPEventLog.started)
        #expect(fixture.controller.isAdvertisingOnRadio)
        #expect(await fixture.advertisingAgrees())
        await fixture.host.shutdown()
    }

    @Test func aConnectionWhileEnableIsInFlightResumesWhenSlotsRemain() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 2)
        fixture.controller.holdAnswers(to: .leSetAdvertisingEnable)
        let starting = Task { try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S")) }
        await fixture.controller.waitForHeldAnswer()
        _ = try await fixture.connect(1, expecting: 1)
        fixture.controller.releaseHeldAnswers()
        _ = try await starting.value
        // The controller stopped for the connection; a slot is left, so the driver enables again.
        await fixture.log.wait(for: 1, where: GAPEventLog.started)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        #expect(fixture.controller.isAdvertisingOnRadio)
        #expect(await fixture.advertisingAgrees())
        await fixture.host.shutdown()
    }

    @Test func aStopWhileAResumeIsPendingWins() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 1)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let link = try await fixture.connect(1, expecting: 1)
        // The disconnection starts a resume, whose enable the controller acts on but does not answer yet…
        fixture.controller.holdAnswers(to: .leSetAdvertisingEnable)
        link.disconnect()
        await fixture.controller.waitForHeldAnswer()
        // …and the application stops advertising meanwhile.
        let stopping = Task { try await fixture.gap.stopAdvertising() }
        fixture.controller.releaseHeldAnswers()
        try await stopping.value
        #expect(!fixture.controller.isAdvertisingOnRadio)
        #expect(await !fixture.gap.isAdvertising)
        #expect(fixture.log.count(where: GAPEventLog.stopped) == 1)
        await fixture.host.shutdown()
    }

    @Test func aDisconnectionDuringAResetEndsAdvertisingOnce() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 1)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let link = try await fixture.connect(1, expecting: 1)
        // The reset takes effect at the controller (the link goes) but its answer is held back.
        fixture.controller.holdAnswers(to: .reset)
        fixture.controller.injectHardwareError(code: 0x22)
        await fixture.log.wait(for: 1, where: GAPEventLog.resetting)
        await fixture.controller.waitForHeldAnswer()
        link.disconnect()
        _ = await link.disconnected
        fixture.controller.releaseHeldAnswers()
        await fixture.log.wait(for: 1, where: GAPEventLog.recovered)
        await fixture.log.wait(for: 2, where: GAPEventLog.started)
        // Once through the driver again: advertising is on, once, and GAP agrees with the radio.
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        #expect(fixture.controller.isAdvertisingOnRadio)
        #expect(await fixture.advertisingAgrees())
        #expect(fixture.log.count(where: GAPEventLog.disconnected) == 1)
        #expect(fixture.gap.activeLinks.isEmpty)
        await fixture.host.shutdown()
    }
}

/// Polls a condition, yielding in between (a barrier on state the driver changes in the
/// background, never a fixed sleep); the suite's time limit bounds it.
func until(_ condition: @Sendable () async -> Bool) async {
    while !(await condition()) { await Task.yield() }
}

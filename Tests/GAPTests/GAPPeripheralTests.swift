import BLECore
import HCI
import Testing
import VirtualController
@testable import GAP

/// A daemon-like stack on a virtual radio: host, GAP peripheral, and a scripted central.
struct PeripheralFixture {
    let radio = VirtualRadio(label: "gap-tests")
    let controller: VirtualController
    let host: HCIHost
    let gap: GAPPeripheral
    let address = BluetoothAddress("C4:11:22:33:44:55")!

    init(maxConnections: Int = 1, completion: VirtualController.CompletionPolicy = .immediate, bufferCount: UInt8 = 8) async throws {
        controller = radio.makeController(configuration: .init(address: BluetoothAddress("00:1B:DC:00:00:01")!,
                                                               aclBufferSize: 27, aclBufferCount: bufferCount,
                                                               inboundFragmentSize: 27, completionPolicy: completion))
        var configuration = HCIHost.Configuration()
        configuration.commandTimeout = .seconds(1)
        host = HCIHost(transport: controller, configuration: configuration)
        _ = try await host.start()
        gap = GAPPeripheral(host: host, configuration: .init(addressPolicy: .randomStatic(address), maxConnections: maxConnections))
        try await gap.start()
    }

    var identity: DeviceAddress { DeviceAddress(address, type: .randomDevice) }

    func central(_ last: UInt8) -> VirtualCentral {
        radio.makeCentral(address: centralAddress(last))
    }

    func centralAddress(_ last: UInt8) -> DeviceAddress {
        DeviceAddress(BluetoothAddress(littleEndian: [last, 0, 0, 0, 0, 0xC1]), type: .randomDevice)
    }

    /// Waits until the peripheral reaches the given advertising state and connection count.
    func eventually(_ what: String, advertising: Bool? = nil, connections: Int, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let isAdvertising = await gap.isAdvertising
            let count = await gap.activeConnections.count
            if count == connections, advertising == nil || advertising == isAdvertising { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("timed out waiting for \(what)")
        return false
    }
}

@Suite struct GAPPeripheralTests {
    @Test func advertisesWithScanResponseSeenByACentral() async throws {
        let fixture = try await PeripheralFixture()
        let plan = try await fixture.gap.startAdvertising(AdvertisingContent(localName: "Environment-Sensor-12", serviceUUIDs: [BluetoothUUID(0x181A)]))
        let results = await fixture.central(1).scan(for: .milliseconds(300))
        let heard = try #require(results.first { $0.address == fixture.identity })
        #expect(heard.advertisingData == plan.advertisingData)
        #expect(heard.scanResponseData == plan.scanResponseData)
        #expect(heard.connectable)
        await fixture.host.shutdown()
    }

    @Test func advertisingResumesAfterDisconnectionAndPausesWhenSlotsAreFull() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 2)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let first = try await fixture.central(1).connect(to: fixture.identity)
        // One slot left: advertising comes back by itself.
        #expect(await fixture.eventually("advertising after first connection", advertising: true, connections: 1))
        let second = try await fixture.central(2).connect(to: fixture.identity)
        #expect(await fixture.eventually("two connections", connections: 2))
        try await Task.sleep(for: .milliseconds(100))
        #expect(await !fixture.gap.isAdvertising)
        let silent = await fixture.central(3).scan(for: .milliseconds(200))
        #expect(!silent.contains { $0.address == fixture.identity })
        second.disconnect()
        #expect(await fixture.eventually("advertising after a disconnection", advertising: true, connections: 1))
        first.disconnect()
        await fixture.host.shutdown()
    }

    @Test func controllerFaultResetsAndRestoresAdvertising() async throws {
        let fixture = try await PeripheralFixture()
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        _ = try await fixture.central(1).connect(to: fixture.identity)
        #expect(await fixture.eventually("connection", connections: 1))
        fixture.controller.injectHardwareError(code: 0x11)
        // Reset drops the link; the peripheral reports it and advertises again.
        #expect(await fixture.eventually("advertising after recovery", advertising: true, connections: 0))
        let rescan = await fixture.central(2).scan(for: .milliseconds(300))
        #expect(rescan.contains { $0.address == fixture.identity })
        await fixture.host.shutdown()
    }

    @Test func hostNeverExceedsControllerCreditsUnderBackpressure() async throws {
        let fixture = try await PeripheralFixture(maxConnections: 2, completion: .manual, bufferCount: 4)
        try await fixture.gap.startAdvertising(AdvertisingContent(localName: "S"))
        let slow = try await fixture.central(1).connect(to: fixture.identity)
        #expect(await fixture.eventually("first connection", advertising: true, connections: 1))
        let healthy = try await fixture.central(2).connect(to: fixture.identity)
        #expect(await fixture.eventually("second connection", connections: 2))
        let connections = await fixture.gap.activeConnections
        let slowHandle = try #require(connections.first { $0.peer == fixture.centralAddress(1) }?.handle)
        let healthyHandle = try #require(connections.first { $0.peer == fixture.centralAddress(2) }?.handle)
        let pdu: [UInt8] = [60, 0, 0x04, 0x00] + [UInt8](repeating: 0xEE, count: 60)   // 64 bytes → 3 fragments
        for _ in 0..<10 {
            try fixture.host.acl.enqueue(pdu, on: slowHandle)
            try fixture.host.acl.enqueue(pdu, on: healthyHandle)
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(fixture.controller.maxBuffersInUse <= 4)
        #expect(fixture.host.acl.packetsInFlight(on: slowHandle) <= 3)
        // Release only the healthy central's packets, as if the slow one had gone quiet.
        let controller = fixture.controller
        let releaser = Task {
            while !Task.isCancelled {
                controller.completePackets(handle: healthyHandle, count: controller.packetsInBuffer[healthyHandle] ?? 0)
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let stream = healthy.received
        let delivered = await withTaskGroup(of: [[UInt8]]?.self) { group in
            group.addTask {
                var pdus: [[UInt8]] = []
                for await next in stream {
                    pdus.append(next)
                    if pdus.count == 10 { break }
                }
                return pdus
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
        releaser.cancel()
        let received = delivered.count
        #expect(delivered.allSatisfy { $0 == pdu })
        #expect(received == 10)
        #expect(fixture.controller.creditViolations == 0)
        #expect(fixture.controller.maxBuffersInUse <= 4)
        // Disconnecting the stalled central gives its credits back.
        slow.disconnect()
        #expect(await fixture.eventually("slow central gone", connections: 1))
        #expect(fixture.host.acl.statistics.creditsReclaimed > 0)
        #expect(fixture.host.acl.packetsInFlight <= 1)
        await fixture.host.shutdown()
    }
}

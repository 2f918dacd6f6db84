import BLECore
import Testing
@testable import HCI

@Suite struct HostEventStreamTests {
    /// Two consumers (the peripheral and the central role) each see every event, in controller order.
    @Test func everyStreamGetsEveryEventInOrder() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        // The shared stream exists from its first use on; events before that are not kept for it.
        let first = host.events
        let second = host.makeEventStream()
        let peer = DeviceAddress(BluetoothAddress("C0:00:00:00:00:07")!, type: .randomDevice)
        for handle: UInt16 in [0x40, 0x41] {
            controller.deliver(HCIEvent.le(.connectionComplete(LEConnectionCompleteEvent(
                handle: handle, role: handle == 0x40 ? .central : .peripheral, peer: peer,
                interval: 24, latency: 0, supervisionTimeout: 500))).packet)
        }
        controller.dropLink()
        func opened(_ stream: AsyncStream<HCIHostEvent>) async -> [UInt16] {
            var handles: [UInt16] = []
            for await event in stream {
                if case let .linkOpened(link) = event { handles.append(link.handle) }
            }
            return handles
        }
        // Both streams end with the transport, so collecting them terminates.
        #expect(await opened(first) == [0x40, 0x41])
        #expect(await opened(second) == [0x40, 0x41])
        // A stream made after the end ends at once.
        #expect(await opened(host.makeEventStream()) == [])
    }

    /// A host used only through `makeEventStream()` (the central role on its own controller) keeps no
    /// other stream: events nobody reads are not piling up, advertising reports included.
    @Test func noStreamIsFedUntilSomebodyAsksForOne() async throws {
        let controller = ScriptedController()
        let host = HCIHost(transport: controller, configuration: virtualTime())
        _ = try await host.start()
        #expect(host.eventSink.consumerCount == 0)
        let stream = host.makeEventStream()
        #expect(host.eventSink.consumerCount == 1)
        _ = host.events
        _ = host.events
        #expect(host.eventSink.consumerCount == 2, "the shared stream is made once")
        _ = stream
        await host.shutdown()
    }
}

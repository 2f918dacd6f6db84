import BLECore
import HCI
import Synchronization
import Testing
@testable import GATTNotify

/// Stands in for the controller: counts packets it holds (credits used) and reassembles PDUs.
final class ControllerModel: Sendable {
    struct State {
        var inFlight: [UInt16: Int] = [:]
        var totalInFlight = 0
        var maximumInFlight = 0
        var partial: [UInt16: [UInt8]] = [:]
        var pdus: [UInt16: [[UInt8]]] = [:]
        var undecodable = 0
    }

    let state = Mutex(State())

    func receive(_ packet: HCIPacket) -> Bool {
        guard let acl = try? HCIACLPacket(body: packet.body) else {
            state.withLock { $0.undecodable += 1 }
            return true
        }
        state.withLock { state in
            state.inFlight[acl.handle, default: 0] += 1
            state.totalInFlight += 1
            state.maximumInFlight = max(state.maximumInFlight, state.totalInFlight)
            var buffer = acl.boundary == .continuing ? state.partial[acl.handle, default: []] : []
            buffer += acl.data
            if buffer.count >= 4, buffer.count == 4 + (Int(buffer[0]) | Int(buffer[1]) << 8) {
                state.pdus[acl.handle, default: []].append(buffer)
                state.partial[acl.handle] = nil
            } else {
                state.partial[acl.handle] = buffer
            }
        }
        return true
    }

    /// The controller transmitted everything it holds for the connection (Number Of Completed Packets).
    func completeAll(on handle: UInt16, flow: ACLFlowController) {
        let count = state.withLock { state in
            let count = state.inFlight[handle, default: 0]
            state.inFlight[handle] = 0
            state.totalInFlight -= count
            return count
        }
        if count > 0 { flow.completePackets([.init(handle: handle, completed: UInt16(count))]) }
    }

    func pdus(on handle: UInt16) -> [[UInt8]] { state.withLock { $0.pdus[handle, default: []] } }
    var maximumInFlight: Int { state.withLock { $0.maximumInFlight } }
}

@Suite struct ACLIntegrationTests {
    @Test func creditsAreNeverExceededAndTheLatestValueArrives() throws {
        let credits = 4
        let model = ControllerModel()
        let flow = ACLFlowController(clock: ManualClock(), send: { model.receive($0) })
        flow.configure(bufferSize: 27, bufferCount: credits)
        let engine = NotificationEngine(sink: ACLNotificationSink(flowController: flow))
        flow.addDrainObserver { [weak engine] _ in engine?.pump() }
        let stalled: UInt16 = 0x40, healthy: UInt16 = 0x41
        for handle in [stalled, healthy] {
            try engine.addConnection(handle, mtu: 247)
            flow.add(engine.link(handle))
        }

        func value(_ step: Int) -> [UInt8] { (0..<244).map { UInt8(truncatingIfNeeded: $0 &+ step) } }
        let steps = 2_000
        for step in 0..<steps {
            #expect(engine.update(value(step), characteristic: 0x002A, to: [stalled, healthy]))
            // The stalled link keeps the 3 credits the ACL layer lets one connection hold; the healthy
            // one works with the remaining credit, returned every step.
            model.completeAll(on: healthy, flow: flow)
            // Values wait in the engine (where they coalesce), not in the ACL queue.
            #expect(flow.queuedPDUs(on: engine.link(stalled)) <= 1 && flow.queuedPDUs(on: engine.link(healthy)) <= 1)
            #expect(flow.packetsInFlight <= credits)
        }
        let whileStalled = engine.statistics()
        #expect(whileStalled[connection: stalled]?.queuedEntries == 1)
        #expect(whileStalled[connection: stalled]?.packetsInFlight == flow.packetsInFlight(on: engine.link(stalled)))
        #expect(model.pdus(on: stalled).count <= 1)   // only what its credits allowed
        #expect(model.pdus(on: healthy).count > 100)

        // The stalled central recovers; everything drains.
        for _ in 0..<200 {
            model.completeAll(on: stalled, flow: flow)
            model.completeAll(on: healthy, flow: flow)
        }
        #expect(model.maximumInFlight <= credits)
        for handle in [stalled, healthy] {
            let delivered = try model.pdus(on: handle).map(decode)
            #expect(delivered.allSatisfy { $0.opcode == 0x1B && $0.handle == 0x002A && $0.value.count == 244 })
            #expect(delivered.last?.value == value(steps - 1))
            let counters = try #require(engine.statistics()[connection: handle]?.counters)
            #expect(counters.sent == delivered.count)
            #expect(counters.enqueued == counters.sent + counters.coalesced)
            #expect(flow.queuedPDUs(on: engine.link(handle)) == 0)
        }
        #expect(flow.statistics.pdusSent == model.pdus(on: stalled).count + model.pdus(on: healthy).count)
    }

    @Test func indicationsThroughACLWaitForConfirmation() throws {
        let model = ControllerModel()
        let flow = ACLFlowController(clock: ManualClock(), send: { model.receive($0) })
        flow.configure(bufferSize: 251, bufferCount: 2)
        let engine = NotificationEngine(sink: ACLNotificationSink(flowController: flow))
        flow.addDrainObserver { [weak engine] _ in engine?.pump() }
        try engine.addConnection(1)
        flow.add(engine.link(1))
        for i in UInt8(0)..<3 { #expect(engine.update([i], characteristic: 0x30, policy: .indication, to: 1)) }
        #expect(model.pdus(on: 1).count == 1)
        model.completeAll(on: 1, flow: flow)
        #expect(model.pdus(on: 1).count == 1)    // credits alone do not release the next indication
        engine.confirmationReceived(on: 1)
        engine.confirmationReceived(on: 1)
        #expect(try model.pdus(on: 1).map(decode).map(\.value) == [[0], [1], [2]])
    }
}

import BLECore
import Synchronization
import Testing
@testable import HCI

/// Records what the flow controller hands to the transport.
final class PacketRecorder: Sendable {
    let packets = Mutex<[HCIACLPacket]>([])
    let drained = Mutex<[UInt16]>([])
    let discarded = Mutex<[UInt16]>([])
    /// When false, the transport refuses every packet.
    let accepting = Mutex(true)
    func record(_ packet: HCIPacket) -> Bool {
        guard accepting.withLock({ $0 }) else { return false }
        if let acl = try? HCIACLPacket(body: packet.body) { packets.withLock { $0.append(acl) } }
        return true
    }
    var sent: [HCIACLPacket] { packets.withLock { $0 } }
}

/// Links by handle, made on first use (a test names them by handle, as the controller does).
final class TestLinks: Sendable {
    private let links = Mutex<[UInt16: Link]>([:])
    subscript(handle: UInt16) -> Link {
        links.withLock { links in
            if let link = links[handle] { return link }
            let link = Link(handle: handle, role: .peripheral, peer: DeviceAddress(.zero, type: .randomDevice),
                            parameters: Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 500))
            links[handle] = link
            return link
        }
    }
}

func l2capPDU(channel: UInt16 = 0x0004, payloadLength: Int, fill: UInt8 = 0xAB) -> [UInt8] {
    [UInt8(payloadLength & 0xFF), UInt8(payloadLength >> 8), UInt8(channel & 0xFF), UInt8(channel >> 8)]
        + [UInt8](repeating: fill, count: payloadLength)
}

@Suite struct ACLFlowControllerTests {
    let links = TestLinks()

    func make(bufferSize: Int = 27, bufferCount: Int = 4, queueLimit: Int = 256,
              clock: ManualClock = ManualClock()) -> (ACLFlowController, PacketRecorder) {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(maxQueuedPDUsPerLink: queueLimit, clock: clock, send: { recorder.record($0) },
                                     discardQueued: { handle in recorder.discarded.withLock { $0.append(handle) } })
        flow.addDrainObserver { link in recorder.drained.withLock { $0.append(link.handle) } }
        flow.configure(bufferSize: bufferSize, bufferCount: bufferCount)
        return (flow, recorder)
    }

    @Test func fragmentsToTheControllerPacketLength() throws {
        let (flow, recorder) = make(bufferSize: 27, bufferCount: 8)
        flow.add(links[0x40])
        let pdu = l2capPDU(payloadLength: 60)   // 64 bytes → 27 + 27 + 10
        try flow.enqueue(pdu, on: links[0x40])
        let sent = recorder.sent
        #expect(sent.map(\.data.count) == [27, 27, 10])
        #expect(sent.map(\.boundary) == [.firstNonFlushable, .continuing, .continuing])
        #expect(sent.flatMap(\.data) == pdu)
        #expect(sent.allSatisfy { $0.handle == 0x40 })
        #expect(recorder.drained.withLock { $0 } == [0x40])
    }

    @Test func neverMoreInFlightThanCredits() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<50 {
            let credits = Int.random(in: 1...6, using: &generator)
            let (flow, recorder) = make(bufferSize: Int.random(in: 23...251, using: &generator), bufferCount: credits)
            let handles: [UInt16] = [1, 2, 3]
            handles.forEach { flow.add(links[$0]) }
            for step in 0..<200 {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    let handle = handles.randomElement(using: &generator)!
                    try? flow.enqueue(l2capPDU(payloadLength: Int.random(in: 0...600, using: &generator)), on: links[handle])
                default:
                    let handle = handles.randomElement(using: &generator)!
                    let inFlight = flow.packetsInFlight(on: links[handle])
                    if inFlight > 0 {
                        flow.completePackets([.init(handle: handle, completed: UInt16(Int.random(in: 1...inFlight, using: &generator)))])
                    }
                }
                #expect(flow.packetsInFlight <= credits, "round \(round) step \(step)")
                #expect(flow.availableCredits >= 0)
            }
            #expect(flow.statistics.maxInFlight <= credits)
            #expect(recorder.sent.count == flow.statistics.packetsSent)
        }
    }

    @Test func scarceCreditsAreSharedRoundRobin() throws {
        let (flow, recorder) = make(bufferSize: 27, bufferCount: 2)
        flow.add(links[1])
        flow.add(links[2])
        flow.add(links[3])
        // Connection 1 floods its queue first; 2 and 3 queue one PDU each afterwards.
        for _ in 0..<10 { try flow.enqueue(l2capPDU(payloadLength: 10, fill: 1), on: links[1]) }
        try flow.enqueue(l2capPDU(payloadLength: 10, fill: 2), on: links[2])
        try flow.enqueue(l2capPDU(payloadLength: 10, fill: 3), on: links[3])
        // Credits come back one at a time, as from a slow controller.
        for _ in 0..<6 {
            let last = recorder.sent.last!
            flow.completePackets([.init(handle: last.handle, completed: 1)])
        }
        let order = recorder.sent.map(\.handle)
        // The flooding connection got the first credits, but 2 and 3 are served within one turn each.
        let firstTwo = try #require(order.firstIndex(of: 2))
        let firstThree = try #require(order.firstIndex(of: 3))
        #expect(firstTwo <= 3)
        #expect(firstThree <= 4)
    }

    @Test func stalledConnectionDoesNotBlockAHealthyOne() throws {
        let (flow, recorder) = make(bufferSize: 27, bufferCount: 4)
        flow.add(links[1])   // never acknowledges
        flow.add(links[2])
        for _ in 0..<20 { try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1]) }
        for _ in 0..<20 {
            try flow.enqueue(l2capPDU(payloadLength: 10), on: links[2])
            if let packet = recorder.sent.last(where: { $0.handle == 2 }), flow.packetsInFlight(on: links[2]) > 0 {
                flow.completePackets([.init(handle: packet.handle, completed: UInt16(flow.packetsInFlight(on: links[2])))])
            }
        }
        // The stalled central holds at most what it took before the other started competing…
        #expect(flow.packetsInFlight(on: links[1]) <= 3)
        // …and the healthy one got every PDU through.
        #expect(recorder.sent.filter { $0.handle == 2 }.count == 20)
    }

    @Test func disconnectionReclaimsCreditsAndIgnoresLateCompletions() throws {
        let (flow, recorder) = make(bufferSize: 27, bufferCount: 3)
        flow.add(links[1])
        flow.add(links[2])
        for _ in 0..<3 { try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1]) }
        for _ in 0..<3 { try flow.enqueue(l2capPDU(payloadLength: 10), on: links[2]) }
        #expect(flow.availableCredits == 0)
        #expect(flow.packetsInFlight(on: links[1]) == 2)
        #expect(flow.queuedPDUs(on: links[2]) == 2)
        let reclaimed = flow.remove(links[1])
        #expect(reclaimed == 2)
        // The reclaimed credits immediately serve the other connection.
        #expect(recorder.sent.suffix(2).allSatisfy { $0.handle == 2 })
        #expect(flow.queuedPDUs(on: links[2]) == 0)
        #expect(flow.availableCredits == 0)
        // A Number Of Completed Packets for the dead handle must not create credits.
        flow.completePackets([.init(handle: 1, completed: 3)])
        #expect(flow.availableCredits == 0)
        flow.completePackets([.init(handle: 2, completed: 3)])
        #expect(flow.availableCredits == 3)
        #expect(flow.statistics.creditsReclaimed == 2)
    }

    @Test func overReportedCompletionsAreClamped() throws {
        let (flow, _) = make(bufferCount: 2)
        flow.add(links[7])
        try flow.enqueue(l2capPDU(payloadLength: 5), on: links[7])
        flow.completePackets([.init(handle: 7, completed: 50)])
        #expect(flow.availableCredits == 2)
    }

    @Test func boundedQueueAndUnknownConnections() throws {
        let (flow, _) = make(bufferCount: 1, queueLimit: 3)
        flow.add(links[1])
        for _ in 0..<4 { try flow.enqueue(l2capPDU(payloadLength: 5), on: links[1]) }   // 1 sent, 3 queued
        #expect(throws: ACLSendError.queueFull(links[1].id, limit: 3)) { try flow.enqueue(l2capPDU(payloadLength: 5), on: links[1]) }
        #expect(throws: ACLSendError.linkClosed(links[9].id)) { try flow.enqueue(l2capPDU(payloadLength: 5), on: links[9]) }
        let unconfigured = ACLFlowController(clock: ManualClock(), send: { _ in true })
        unconfigured.add(links[1])
        #expect(throws: ACLSendError.notConfigured) { try unconfigured.enqueue([0, 0, 4, 0], on: links[1]) }
    }
}

@Suite struct ACLReassemblerTests {
    @Test func reassemblesFragmentsByTheL2CAPLength() {
        var reassembler = ACLReassembler()
        let pdu = l2capPDU(payloadLength: 60)
        #expect(reassembler.append(Array(pdu[0..<1]), boundary: .firstFlushable) == .incomplete)
        #expect(reassembler.append(Array(pdu[1..<30]), boundary: .continuing) == .incomplete)
        #expect(reassembler.append(Array(pdu[30...]), boundary: .continuing) == .complete(pdu))
        #expect(reassembler.isIdle)
        #expect(reassembler.append(l2capPDU(payloadLength: 0), boundary: .firstFlushable) == .complete(l2capPDU(payloadLength: 0)))
    }

    @Test func malformedFragmentsAreDropped() {
        var reassembler = ACLReassembler()
        guard case .dropped = reassembler.append([1, 2, 3], boundary: .continuing) else {
            Issue.record("continuation without start accepted")
            return
        }
        let pdu = l2capPDU(payloadLength: 10)
        _ = reassembler.append(Array(pdu[0..<6]), boundary: .firstFlushable)
        guard case .dropped = reassembler.append(Array(pdu[6...]) + [0xFF], boundary: .continuing) else {
            Issue.record("overlong PDU accepted")
            return
        }
        #expect(reassembler.isIdle)
        // An unfinished PDU is abandoned when a new one starts; the new one still arrives.
        _ = reassembler.append(Array(pdu[0..<6]), boundary: .firstFlushable)
        guard case .dropped = reassembler.append(Array(pdu[0..<6]), boundary: .firstFlushable) else {
            Issue.record("abandoned PDU not reported")
            return
        }
        #expect(reassembler.append(Array(pdu[6...]), boundary: .continuing) == .complete(pdu))
    }
}

@Suite struct ACLCreditReserveTests {
    let links = TestLinks()

    @Test func creditsAreKeptBackForTheCentralsThatMayStillConnect() throws {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(clock: ManualClock(), send: { recorder.record($0) })
        flow.reserveCredits(forLinks: 3)
        flow.configure(bufferSize: 27, bufferCount: 4)
        flow.add(links[1])
        for _ in 0..<10 { try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1]) }
        // Alone, with room configured for 3 centrals, one credit stays free for each other central:
        // were link 1's central to stop acknowledging, the next central is still answered.
        #expect(flow.packetsInFlight(on: links[1]) == 2)
        flow.add(links[2])
        try flow.enqueue(l2capPDU(payloadLength: 10), on: links[2])
        #expect(flow.perLinkCreditLimit == 2)
        #expect(flow.packetsInFlight(on: links[2]) == 1)
        flow.add(links[3])
        try flow.enqueue(l2capPDU(payloadLength: 10), on: links[3])
        #expect(flow.packetsInFlight(on: links[3]) == 1)
        // As link 1's packets complete it takes back no more than its share.
        flow.completePackets([.init(handle: 1, completed: 2)])
        #expect(flow.packetsInFlight(on: links[1]) == 2)
    }

    @Test func withOneCentralConfiguredALinkMayUseEveryCredit() throws {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(clock: ManualClock(), send: { recorder.record($0) })
        flow.reserveCredits(forLinks: 1)
        flow.configure(bufferSize: 27, bufferCount: 4)
        flow.add(links[1])
        for _ in 0..<10 { try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1]) }
        #expect(flow.packetsInFlight(on: links[1]) == 4)
    }
}

@Suite struct ACLTransmitPathTests {
    let links = TestLinks()

    @Test func aRefusedWriteReturnsItsCreditAndDropsThePDU() throws {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(clock: ManualClock(), send: { recorder.record($0) })
        flow.configure(bufferSize: 27, bufferCount: 2)
        flow.add(links[1])
        recorder.accepting.withLock { $0 = false }
        try flow.enqueue(l2capPDU(payloadLength: 60), on: links[1])       // three fragments
        try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1], headroom: 0)
        #expect(flow.packetsInFlight == 0)
        #expect(flow.availableCredits == 2)
        #expect(flow.statistics.writesRefused >= 2)
        #expect(flow.queuedPDUs(on: links[1]) == 0)
        recorder.accepting.withLock { $0 = true }
        try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1])
        #expect(flow.packetsInFlight(on: links[1]) == 1)
        #expect(recorder.sent.count == 1)
    }

    /// PDUs that waited for a credit are framed in their own headroom when they leave, as on the
    /// fast path: same packets as framing a copy, and a refused one is dropped alone.
    @Test func queuedPDUsWithHeadroomLeaveFramedInPlace() throws {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(clock: ManualClock(), send: { recorder.record($0) })
        flow.configure(bufferSize: 27, bufferCount: 1)
        flow.add(links[0x21])
        let headroom = ACLFlowController.frameHeadroom
        func framed(_ fill: UInt8, extra: Int = 0) -> [UInt8] {
            [UInt8](repeating: 0xEE, count: headroom + extra) + l2capPDU(payloadLength: 6, fill: fill)
        }
        try flow.enqueue(framed(0x01), on: links[0x21], headroom: headroom)               // takes the credit
        try flow.enqueue(framed(0x02), on: links[0x21], headroom: headroom)               // queued
        try flow.enqueue(framed(0x03, extra: 3), on: links[0x21], headroom: headroom + 3) // queued, more room than needed
        try flow.enqueue(framed(0x04), on: links[0x21], headroom: headroom)               // queued, refused below
        #expect(flow.queuedPDUs(on: links[0x21]) == 3)
        flow.completePackets([.init(handle: 0x21, completed: 1)])
        flow.completePackets([.init(handle: 0x21, completed: 1)])
        recorder.accepting.withLock { $0 = false }
        flow.completePackets([.init(handle: 0x21, completed: 1)])
        recorder.accepting.withLock { $0 = true }
        try flow.enqueue(framed(0x05), on: links[0x21], headroom: headroom)               // the credit is still free
        let sent = recorder.sent
        #expect(sent.map(\.handle) == [0x21, 0x21, 0x21, 0x21])
        #expect(sent.map(\.boundary) == [.firstNonFlushable, .firstNonFlushable, .firstNonFlushable, .firstNonFlushable])
        #expect(sent.map { Array($0.data) } == [0x01, 0x02, 0x03, 0x05].map { l2capPDU(payloadLength: 6, fill: $0) })
        #expect(flow.statistics.writesRefused == 1)
        #expect(flow.queuedPDUs(on: links[0x21]) == 0)
    }

    @Test func drainObserversAreAllCalledAndCanBeRemoved() throws {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(clock: ManualClock(), send: { recorder.record($0) })
        flow.configure(bufferSize: 27, bufferCount: 1)
        flow.add(links[1])
        let calls = Mutex<[String]>([])
        let first = flow.addDrainObserver { _ in calls.withLock { $0.append("engine") } }
        flow.addDrainObserver { _ in calls.withLock { $0.append("gatt") } }
        try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1])   // queued, sent at once: drained
        try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1])   // waits for the credit
        #expect(calls.withLock { $0.sorted() } == ["engine", "gatt"])
        flow.removeDrainObserver(first)
        flow.completePackets([.init(handle: 1, completed: 1)])           // queue drains again
        #expect(calls.withLock { $0.sorted() } == ["engine", "gatt", "gatt"])
    }

    @Test func aLinkWithoutCompletionsForTheTransmitTimeoutIsReportedOnce() throws {
        let clock = ManualClock()
        let recorder = PacketRecorder()
        let flow = ACLFlowController(transmitTimeout: .seconds(10), clock: clock, send: { recorder.record($0) })
        flow.configure(bufferSize: 27, bufferCount: 8)
        let reported = Mutex<[UInt16]>([])
        flow.setTransmitTimeoutHandler { link in reported.withLock { $0.append(link.handle) } }
        flow.add(links[1])   // stops completing
        flow.add(links[2])   // keeps completing
        try flow.enqueue(l2capPDU(payloadLength: 10), on: links[1])
        for _ in 0..<4 {
            try flow.enqueue(l2capPDU(payloadLength: 10), on: links[2])
            clock.advance(by: .seconds(4))
            flow.completePackets([.init(handle: 2, completed: 1)])
            try flow.enqueue(l2capPDU(payloadLength: 10), on: links[2])
        }
        // 16 s: link 1 timed out once; link 2 completed all along (one packet is still out, 0 s old).
        #expect(reported.withLock { $0 } == [1])
        clock.advance(by: .seconds(9))
        #expect(reported.withLock { $0 } == [1])
        clock.advance(by: .seconds(2))
        #expect(reported.withLock { $0 } == [1, 2])
        // A link with nothing in flight is never reported.
        flow.completePackets([.init(handle: 2, completed: UInt16(flow.packetsInFlight(on: links[2])))])
        clock.advance(by: .seconds(60))
        #expect(reported.withLock { $0 } == [1, 2])
    }

    @Test func removingALinkDiscardsItsPacketsInTheTransport() throws {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(clock: ManualClock(), send: { recorder.record($0) },
                                     discardQueued: { handle in recorder.discarded.withLock { $0.append(handle) } })
        flow.configure(bufferSize: 27, bufferCount: 4)
        flow.add(links[5])
        try flow.enqueue(l2capPDU(payloadLength: 10), on: links[5])
        flow.remove(links[5])
        #expect(recorder.discarded.withLock { $0 } == [5])
        // A new link on the same handle starts clean: the old one's credits and queue are gone.
        let reused = Link(handle: 5, role: .peripheral, peer: DeviceAddress(.zero, type: .randomDevice),
                          parameters: Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 500))
        flow.add(reused)
        #expect(flow.packetsInFlight(on: reused) == 0)
        #expect(flow.queuedPDUs(on: reused) == 0)
        #expect(throws: ACLSendError.linkClosed(links[5].id)) { try flow.enqueue(l2capPDU(payloadLength: 1), on: links[5]) }
    }
}

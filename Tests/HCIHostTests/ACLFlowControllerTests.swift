import Synchronization
import Testing
@testable import HCI

/// Records what the flow controller hands to the transport.
final class PacketRecorder: Sendable {
    let packets = Mutex<[HCIACLPacket]>([])
    let drained = Mutex<[UInt16]>([])
    func record(_ packet: HCIPacket) {
        if let acl = try? HCIACLPacket(body: packet.body) { packets.withLock { $0.append(acl) } }
    }
    var sent: [HCIACLPacket] { packets.withLock { $0 } }
}

func l2capPDU(channel: UInt16 = 0x0004, payloadLength: Int, fill: UInt8 = 0xAB) -> [UInt8] {
    [UInt8(payloadLength & 0xFF), UInt8(payloadLength >> 8), UInt8(channel & 0xFF), UInt8(channel >> 8)]
        + [UInt8](repeating: fill, count: payloadLength)
}

@Suite struct ACLFlowControllerTests {
    func make(bufferSize: Int = 27, bufferCount: Int = 4, queueLimit: Int = 256) -> (ACLFlowController, PacketRecorder) {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(maxQueuedPDUsPerConnection: queueLimit, send: recorder.record,
                                     onQueueDrained: { handle in recorder.drained.withLock { $0.append(handle) } })
        flow.configure(bufferSize: bufferSize, bufferCount: bufferCount)
        return (flow, recorder)
    }

    @Test func fragmentsToTheControllerPacketLength() throws {
        let (flow, recorder) = make(bufferSize: 27, bufferCount: 8)
        flow.addConnection(0x40)
        let pdu = l2capPDU(payloadLength: 60)   // 64 bytes → 27 + 27 + 10
        try flow.enqueue(pdu, on: 0x40)
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
            handles.forEach(flow.addConnection)
            for step in 0..<200 {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    let handle = handles.randomElement(using: &generator)!
                    try? flow.enqueue(l2capPDU(payloadLength: Int.random(in: 0...600, using: &generator)), on: handle)
                default:
                    let handle = handles.randomElement(using: &generator)!
                    let inFlight = flow.packetsInFlight(on: handle)
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
        flow.addConnection(1)
        flow.addConnection(2)
        flow.addConnection(3)
        // Connection 1 floods its queue first; 2 and 3 queue one PDU each afterwards.
        for _ in 0..<10 { try flow.enqueue(l2capPDU(payloadLength: 10, fill: 1), on: 1) }
        try flow.enqueue(l2capPDU(payloadLength: 10, fill: 2), on: 2)
        try flow.enqueue(l2capPDU(payloadLength: 10, fill: 3), on: 3)
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
        flow.addConnection(1)   // never acknowledges
        flow.addConnection(2)
        for _ in 0..<20 { try flow.enqueue(l2capPDU(payloadLength: 10), on: 1) }
        for _ in 0..<20 {
            try flow.enqueue(l2capPDU(payloadLength: 10), on: 2)
            if let packet = recorder.sent.last(where: { $0.handle == 2 }), flow.packetsInFlight(on: 2) > 0 {
                flow.completePackets([.init(handle: packet.handle, completed: UInt16(flow.packetsInFlight(on: 2)))])
            }
        }
        // The stalled central holds at most what it took before the other started competing…
        #expect(flow.packetsInFlight(on: 1) <= 3)
        // …and the healthy one got every PDU through.
        #expect(recorder.sent.filter { $0.handle == 2 }.count == 20)
    }

    @Test func disconnectionReclaimsCreditsAndIgnoresLateCompletions() throws {
        let (flow, recorder) = make(bufferSize: 27, bufferCount: 3)
        flow.addConnection(1)
        flow.addConnection(2)
        for _ in 0..<3 { try flow.enqueue(l2capPDU(payloadLength: 10), on: 1) }
        for _ in 0..<3 { try flow.enqueue(l2capPDU(payloadLength: 10), on: 2) }
        #expect(flow.availableCredits == 0)
        #expect(flow.packetsInFlight(on: 1) == 2)
        #expect(flow.queuedPDUs(on: 2) == 2)
        let reclaimed = flow.removeConnection(1)
        #expect(reclaimed == 2)
        // The reclaimed credits immediately serve the other connection.
        #expect(recorder.sent.suffix(2).allSatisfy { $0.handle == 2 })
        #expect(flow.queuedPDUs(on: 2) == 0)
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
        flow.addConnection(7)
        try flow.enqueue(l2capPDU(payloadLength: 5), on: 7)
        flow.completePackets([.init(handle: 7, completed: 50)])
        #expect(flow.availableCredits == 2)
    }

    @Test func boundedQueueAndUnknownConnections() throws {
        let (flow, _) = make(bufferCount: 1, queueLimit: 3)
        flow.addConnection(1)
        for _ in 0..<4 { try flow.enqueue(l2capPDU(payloadLength: 5), on: 1) }   // 1 sent, 3 queued
        #expect(throws: ACLSendError.queueFull(handle: 1, limit: 3)) { try flow.enqueue(l2capPDU(payloadLength: 5), on: 1) }
        #expect(throws: ACLSendError.unknownConnection(9)) { try flow.enqueue(l2capPDU(payloadLength: 5), on: 9) }
        let unconfigured = ACLFlowController(send: { _ in })
        unconfigured.addConnection(1)
        #expect(throws: ACLSendError.notConfigured) { try unconfigured.enqueue([0, 0, 4, 0], on: 1) }
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
    @Test func reserveProtectsCentralsThatConnectLater() throws {
        let recorder = PacketRecorder()
        let flow = ACLFlowController(send: recorder.record)
        flow.reserveCredits(forConnections: 3)
        flow.configure(bufferSize: 27, bufferCount: 4)
        flow.addConnection(1)
        for _ in 0..<10 { try flow.enqueue(l2capPDU(payloadLength: 10), on: 1) }
        // Alone but with room for 3 centrals, the first keeps two credits free for the others.
        #expect(flow.packetsInFlight(on: 1) == 2)
        flow.addConnection(2)
        try flow.enqueue(l2capPDU(payloadLength: 10), on: 2)
        #expect(flow.packetsInFlight(on: 2) == 1)
    }
}

import BLECore
import HCI
import Testing
@testable import VirtualController

@Suite struct ACLTests {
    let radio = VirtualRadio()

    /// Sends `pdu` as ACL packets of at most `size` bytes (PB 00 then 01), as a host does.
    private func sendPDU(_ pdu: [UInt8], from host: TestHost, handle: UInt16, size: Int = 251) throws {
        var offset = 0
        while offset < pdu.count {
            let end = min(offset + size, pdu.count)
            try host.send(HCIACLPacket.frame(handle: handle, boundary: offset == 0 ? .firstNonFlushable : .continuing, fragment: pdu[offset..<end]))
            offset = end
        }
    }

    /// Collects ACL fragments until one L2CAP PDU is complete.
    private func receivePDU(_ host: TestHost, handle: UInt16, maxFragment: Int) async throws -> [UInt8] {
        let first = try await host.acl()
        #expect(first.handle == handle && first.boundary == .firstFlushable && first.data.count <= maxFragment)
        var pdu = first.data
        let total = (Int(pdu[0]) | Int(pdu[1]) << 8) + 4
        while pdu.count < total {
            let next = try await host.acl()
            #expect(next.boundary == .continuing && next.data.count <= maxFragment)
            pdu += next.data
        }
        return pdu
    }

    @Test func pduIsReassembledForwardedAndRefragmented() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:10:01")
        let peripheral = try await TestHost(radio, address: "00:00:00:00:10:02") { $0.inboundFragmentSize = 27 }
        try await central.initialize()
        try await peripheral.initialize()
        let (ch, ph) = try await connect(central, to: peripheral)
        let pdu = l2cap((0..<300).map { UInt8(truncatingIfNeeded: $0) })
        try sendPDU(pdu, from: central, handle: ch)
        #expect(try await receivePDU(peripheral, handle: ph, maxFragment: 27) == pdu)
        // Immediate policy: one Number Of Completed Packets per ACL packet sent.
        for _ in 0..<2 {
            let event = try await central.event("NOCP") { $0.completedPackets != nil }
            #expect(event.completedPackets?.entries == [.init(handle: ch, completed: 1)])
        }
        #expect(central.controller.packetsInBuffer.isEmpty)
        #expect(central.controller.maxBuffersInUse == 1)
    }

    @Test func virtualCentralExchangesPDUsWithAPeripheralHost() async throws {
        let peripheral = try await TestHost(radio, address: "00:00:00:00:11:02") { $0.inboundFragmentSize = 10 }
        try await peripheral.initialize()
        try await peripheral.advertise()
        let central = radio.makeCentral(address: DeviceAddress(BluetoothAddress("C0:00:00:00:11:01")!, type: .randomDevice))
        let link = try await central.connect(to: peripheral.publicAddress)
        let ph = try await peripheral.connectionComplete().handle
        let request = l2cap([0x02, 0x01, 0x00, 0x17, 0x00, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
        try link.send(l2capPDU: request)
        #expect(try await receivePDU(peripheral, handle: ph, maxFragment: 10) == request)
        let response = l2cap((0..<40).map { UInt8($0) })
        try sendPDU(response, from: peripheral, handle: ph, size: 16)
        var iterator = link.received.makeAsyncIterator()
        #expect(await iterator.next() == response)
    }

    @Test func manualCompletionWithholdsCreditsAndCountsViolations() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:12:01") {
            $0.completionPolicy = .manual
            $0.aclBufferCount = 4
            $0.aclBufferSize = 27
        }
        let peripheral = try await TestHost(radio, address: "00:00:00:00:12:02")
        try await central.initialize()
        try await peripheral.initialize()
        let (ch, ph) = try await connect(central, to: peripheral)
        for index in 0..<5 { try sendPDU(l2cap([UInt8(index)]), from: central, handle: ch) }
        try sendPDU(l2cap([UInt8](repeating: 0, count: 40)), from: central, handle: ch, size: 44)
        try await central.sync()
        #expect(!central.inbox.pending.contains { $0.event?.completedPackets != nil })
        #expect(central.controller.packetsInBuffer == [ch: 4])
        #expect(central.controller.maxBuffersInUse == 4)
        // The fifth packet had no buffer; the oversized one exceeded 27 bytes.
        #expect(central.controller.creditViolations == 2)
        for index in 0..<4 { #expect(try await receivePDU(peripheral, handle: ph, maxFragment: 251) == l2cap([UInt8(index)])) }

        central.controller.completePackets(handle: ch, count: 3)
        let event = try await central.event("NOCP") { $0.completedPackets != nil }
        #expect(event.completedPackets?.entries == [.init(handle: ch, completed: 3)])
        #expect(central.controller.packetsInBuffer == [ch: 1])
        central.controller.completeAllPackets()
        let rest = try await central.event("NOCP") { $0.completedPackets != nil }
        #expect(rest.completedPackets?.entries == [.init(handle: ch, completed: 1)])
    }

    @Test func batchedCompletionCoalescesPerHandle() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:13:01") { $0.completionPolicy = .batched(every: .milliseconds(30)) }
        let peripheral = try await TestHost(radio, address: "00:00:00:00:13:02")
        try await central.initialize()
        try await peripheral.initialize()
        let (ch, _) = try await connect(central, to: peripheral)
        for index in 0..<3 { try sendPDU(l2cap([UInt8(index)]), from: central, handle: ch) }
        let event = try await central.event("batched NOCP") { $0.completedPackets != nil }
        #expect(event.completedPackets?.entries == [.init(handle: ch, completed: 3)])
        #expect(central.controller.packetsInBuffer.isEmpty)
    }

    @Test func disconnectionDiscardsBufferedPacketsWithoutCompleting() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:14:01") { $0.completionPolicy = .manual }
        let peripheral = try await TestHost(radio, address: "00:00:00:00:14:02")
        try await central.initialize()
        try await peripheral.initialize()
        let (ch, _) = try await connect(central, to: peripheral)
        for index in 0..<3 { try sendPDU(l2cap([UInt8(index)]), from: central, handle: ch) }
        #expect(try await central.status(HCIDisconnect(handle: ch)) == .success)
        _ = try await central.disconnection()
        #expect(central.controller.packetsInBuffer.isEmpty)
        central.controller.completeAllPackets()
        try await central.sync()
        #expect(!central.inbox.pending.contains { $0.event?.completedPackets != nil })
    }

    @Test func reassemblerHandlesSplitHeadersAndRejectsOrphans() {
        var reassembler = L2CAPReassembler()
        #expect(reassembler.append([0x01], startsPDU: true) == .incomplete)
        #expect(reassembler.append([0x00, 0x04, 0x00], startsPDU: false) == .incomplete)
        #expect(reassembler.append([0xAB], startsPDU: false) == .complete([0x01, 0x00, 0x04, 0x00, 0xAB]))
        if case .dropped = reassembler.append([0x00], startsPDU: false) {} else { Issue.record("orphan continuation accepted") }
        if case .dropped = reassembler.append([0x00, 0x00, 0x04, 0x00, 0xFF], startsPDU: true) {} else { Issue.record("overlong PDU accepted") }
    }
}

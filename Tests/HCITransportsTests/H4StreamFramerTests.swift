import HCI
import Testing

@testable import HCITransports

extension H4StreamFramer {
    /// Collects what one `feed` delivers (tests only; transports deliver as they go).
    mutating func feed(_ chunk: some Collection<UInt8>) throws(HCITransportError) -> [HCIPacket] {
        var packets: [HCIPacket] = []
        try feed(chunk) { packets.append($0) }
        return packets
    }
}

@Suite struct H4StreamFramerTests {
    /// One packet of every H4 type, from Core spec examples (Vol 4 Part E 7, Part A 2).
    static let vectors: [[UInt8]] = [
        [0x01, 0x03, 0x0C, 0x00],  // HCI_Reset, no parameters
        [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00],  // LE Set Scan Enable (enable, no dedup)
        [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00],  // Command Complete for HCI_Reset, success
        [0x04, 0x13, 0x00],  // event with an empty parameter field
        // ACL handle 0x0040, first flushable; 7 bytes of L2CAP: ATT Read Request on CID 4
        [0x02, 0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00],
        [0x02, 0x40, 0x10, 0x00, 0x00],  // ACL continuation with zero length
        [0x03, 0x01, 0x00, 0x03, 0xAA, 0xBB, 0xCC],  // SCO, 3 bytes
        // ISO: the two RFU bits above the 14-bit length (0xC0 in byte 3) must be ignored
        [0x05, 0x60, 0x40, 0x05, 0xC0, 0x01, 0x02, 0x03, 0x04, 0x05],
    ]

    static var stream: [UInt8] { vectors.flatMap { $0 } }

    @Test func parsesEveryPacketTypeFedWhole() throws {
        var framer = H4StreamFramer()
        let packets = try framer.feed(Self.stream)
        #expect(packets.map(\.h4Bytes) == Self.vectors)
        #expect(packets.map(\.type) == [.command, .command, .event, .event, .acl, .acl, .sco, .iso])
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func splitAtEveryBoundaryYieldsSamePackets() throws {
        let stream = Self.stream
        for split in 0...stream.count {
            var framer = H4StreamFramer()
            var packets = try framer.feed(stream[..<split])
            packets += try framer.feed(stream[split...])
            #expect(packets.map(\.h4Bytes) == Self.vectors, "split at \(split)")
            #expect(framer.bufferedByteCount == 0)
        }
    }

    @Test func splitAtEveryPairOfBoundariesYieldsSamePackets() throws {
        let stream = Self.stream
        for first in 0...stream.count {
            for second in first...stream.count {
                var framer = H4StreamFramer()
                var packets = try framer.feed(stream[..<first])
                packets += try framer.feed(stream[first..<second])
                packets += try framer.feed(stream[second...])
                #expect(packets.map(\.h4Bytes) == Self.vectors, "splits at \(first), \(second)")
            }
        }
    }

    @Test func oneByteChunksYieldPacketsAsSoonAsComplete() throws {
        var framer = H4StreamFramer()
        var packets: [HCIPacket] = []
        var completedAt: [Int] = []
        for (offset, byte) in Self.stream.enumerated() {
            let new = try framer.feed([byte])
            if !new.isEmpty { completedAt.append(offset) }
            packets += new
        }
        #expect(packets.map(\.h4Bytes) == Self.vectors)
        var end = -1
        let expectedEnds = Self.vectors.map { vector -> Int in
            end += vector.count
            return end
        }
        #expect(completedAt == expectedEnds)
    }

    @Test func incompletePacketIsHeldBack() throws {
        var framer = H4StreamFramer()
        #expect(try framer.feed([0x04, 0x0E, 0x04, 0x01]).isEmpty)
        #expect(framer.bufferedByteCount == 4)
        let packets = try framer.feed([0x03, 0x0C, 0x00, 0x04])
        #expect(packets.map(\.h4Bytes) == [[0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]])
        #expect(framer.bufferedByteCount == 1)
    }

    @Test func largestACLPacketIsAccepted() throws {
        var framer = H4StreamFramer()
        let payload = [UInt8](repeating: 0x5A, count: 65535)
        let packet = [0x02, 0x01, 0x00, 0xFF, 0xFF] + payload
        #expect(packet.count == H4StreamFramer.maximumPacketSize)
        #expect(try framer.feed(packet[..<40000]).isEmpty)
        #expect(framer.bufferedByteCount <= H4StreamFramer.maximumPacketSize)
        let packets = try framer.feed(packet[40000...])
        #expect(packets.map(\.h4Bytes) == [packet])
    }

    @Test(arguments: [UInt8(0x00), 0x06, 0x07, 0xFF])
    func unknownIndicatorLosesFraming(indicator: UInt8) throws {
        var framer = H4StreamFramer()
        // A good packet first: it must still be framed before the bad byte is reached.
        #expect(try framer.feed([0x04, 0x13, 0x00]).count == 1)
        let hex = String(indicator, radix: 16, uppercase: false)
        let padded = hex.count == 1 ? "0" + hex : hex
        #expect {
            _ = try framer.feed([indicator, 0x00, 0x00])
        } throws: { error in
            guard case let .framingLost(message) = error as? HCITransportError else { return false }
            return message.lowercased().contains("0x\(padded)")
        }
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func packetsBeforeAnUnknownIndicatorInTheSameChunkAreDelivered() {
        var framer = H4StreamFramer()
        var delivered: [[UInt8]] = []
        #expect(throws: HCITransportError.self) {
            try framer.feed([0x04, 0x13, 0x00, 0x01, 0x03, 0x0C, 0x00, 0x09, 0x04]) { delivered.append($0.h4Bytes) }
        }
        #expect(delivered == [[0x04, 0x13, 0x00], [0x01, 0x03, 0x0C, 0x00]])
    }
}

import Testing
@testable import GATTNotify

/// Sequence numbers only grow; on armhf a 32-bit Int would trap once they pass 2^31.
@Suite struct ValueRingTests {
    private func value(_ byte: UInt8, characteristic: UInt16 = 1) -> QueuedValue {
        QueuedValue(characteristic: characteristic, value: [byte], length: 1)
    }

    @Test func sequencesCrossTheThirtyTwoBitLimit() {
        var ring = ValueRing(capacity: 3, firstSequence: QueueSequence(Int32.max) - 1)
        var appended: [QueueSequence] = []
        for byte in UInt8(0)..<3 { appended.append(ring.append(value(byte))) }
        #expect(appended == [QueueSequence(Int32.max) - 1, QueueSequence(Int32.max), QueueSequence(Int32.max) + 1])
        #expect(ring.isFull)
        #expect(ring[appended[2]].value == [2])
        #expect(ring.removeFirst().value == [0])
        let next = ring.append(value(3))
        #expect(next == QueueSequence(Int32.max) + 2)
        #expect(ring.count == 3)
        #expect([ring.removeFirst(), ring.removeFirst(), ring.removeFirst()].map(\.value) == [[1], [2], [3]])
        #expect(ring.isEmpty)
    }

    @Test func removingPastTheLimitKeepsOrder() {
        var ring = ValueRing(capacity: 4, firstSequence: QueueSequence(UInt32.max))
        for (byte, characteristic) in [(UInt8(0), UInt16(1)), (1, 2), (2, 1), (3, 2)] {
            _ = ring.append(value(byte, characteristic: characteristic))
        }
        let removed = ring.remove(keepingFirst: 1, where: { $0.characteristic == 1 })
        #expect(removed.map(\.value) == [[2]])
        #expect(ring.count == 3)
        #expect(ring.lastSequence(after: 0) { $0.characteristic == 2 } == QueueSequence(UInt32.max) + 2)
        #expect(ring.removeAll().map(\.value) == [[0], [1], [3]])
    }
}

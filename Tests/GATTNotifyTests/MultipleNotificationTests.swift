import Testing
@testable import GATTNotify

/// Splits a Multiple Handle Value Notification (Vol 3 Part F 3.4.7.4) into its tuples; nil when the
/// L2CAP frame is not one or a tuple is cut short.
func decodeMultiple(_ pdu: [UInt8]) -> [DecodedPDU]? {
    guard pdu.count >= 5, Int(pdu[0]) | Int(pdu[1]) << 8 == pdu.count - 4, pdu[2] == 0x04, pdu[3] == 0x00, pdu[4] == 0x23 else { return nil }
    var tuples: [DecodedPDU] = []
    var offset = 5
    while offset < pdu.count {
        guard offset + 4 <= pdu.count else { return nil }
        let handle = UInt16(pdu[offset]) | UInt16(pdu[offset + 1]) << 8
        let length = Int(pdu[offset + 2]) | Int(pdu[offset + 3]) << 8
        offset += 4
        guard offset + length <= pdu.count else { return nil }
        tuples.append(DecodedPDU(opcode: 0x1B, handle: handle, value: Array(pdu[offset..<(offset + length)])))
        offset += length
    }
    return tuples
}

/// What one PDU on the wire carried: a plain notification/indication or the tuples of a 0x23.
enum Sent: Equatable {
    case single(opcode: UInt8, handle: UInt16, value: [UInt8])
    case multiple([(UInt16, [UInt8])])

    static func == (lhs: Sent, rhs: Sent) -> Bool {
        switch (lhs, rhs) {
        case let (.single(a, b, c), .single(d, e, f)): return a == d && b == e && c == f
        case let (.multiple(left), .multiple(right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

func classify(_ pdu: [UInt8]) throws -> Sent {
    if pdu.count >= 5, pdu[4] == 0x23 {
        let tuples = try #require(decodeMultiple(pdu))
        return .multiple(tuples.map { ($0.handle, $0.value) })
    }
    let single = try decode(pdu)
    return .single(opcode: single.opcode, handle: single.handle, value: single.value)
}

/// A stalled connection 1 at `mtu` with Multiple Handle Value Notifications on (unless told otherwise).
func stalledEngine(mtu: Int = 23, enabled: Bool = true) throws -> (FakeSink, NotificationEngine) {
    let sink = FakeSink(allowance: 0)
    let engine = NotificationEngine(sink: sink)
    try engine.addConnection(1, mtu: mtu)
    engine.setMultipleHandleValueNotifications(enabled, on: 1)
    return (sink, engine)
}

func release(_ sink: FakeSink, _ engine: NotificationEngine) {
    sink.allow(.max, on: 1)
    engine.pump()
}

@Suite struct MultipleNotificationTests {
    @Test func threeCharacteristicsLeaveAsOneMultipleHandleValueNotification() throws {
        let (sink, engine) = try stalledEngine()
        #expect(engine.update([0x01, 0x02], characteristic: 0x0020, to: 1))
        #expect(engine.update([0x03], characteristic: 0x0021, to: 1))
        #expect(engine.update([0x04, 0x05, 0x06], characteristic: 0x0122, to: 1))
        #expect(sink.sent(on: 1).isEmpty)
        release(sink, engine)
        // L2CAP length 19, CID 0x0004, opcode 0x23, then (handle LE, length LE, value) per characteristic.
        #expect(sink.sent(on: 1) == [[
            0x13, 0x00, 0x04, 0x00, 0x23,
            0x20, 0x00, 0x02, 0x00, 0x01, 0x02,
            0x21, 0x00, 0x01, 0x00, 0x03,
            0x22, 0x01, 0x03, 0x00, 0x04, 0x05, 0x06,
        ]])
        let connection = try #require(engine.statistics()[connection: 1])
        #expect(connection.multipleNotificationsEnabled)
        #expect(connection.queuedEntries == 0 && connection.queuedBytes == 0)
        #expect(connection.counters.sent == 3)
        #expect(connection.counters.multipleNotificationPDUs == 1)
        #expect(connection.counters.multipleNotificationValues == 3)
        for characteristic: UInt16 in [0x0020, 0x0021, 0x0122] {
            let counters = try #require(connection.characteristics[characteristic])
            #expect(counters.sent == 1 && counters.multipleNotificationValues == 1 && counters.multipleNotificationPDUs == 1)
        }
        let totals = engine.statistics().totals
        #expect(totals.multipleNotificationPDUs == 1 && totals.multipleNotificationValues == 3 && totals.sent == 3)
    }

    @Test func mtuSplitsValuesOverSeveralPDUsAndNeverCutsATuple() throws {
        // MTU 23: 22 octets for tuples. A 6-octet value takes 10, so two fit and a third does not.
        let (sink, engine) = try stalledEngine()
        for index in 0..<5 {
            #expect(engine.update([UInt8](repeating: UInt8(index), count: 6), characteristic: 0x0030 + UInt16(index), to: 1))
        }
        // Truncated to MTU − 3 = 20 octets: a 24-octet tuple never fits, so it goes alone as 0x1B.
        #expect(engine.update([UInt8](repeating: 0xEE, count: 40), characteristic: 0x0040, to: 1))
        #expect(engine.update([0x77], characteristic: 0x0041, to: 1))
        release(sink, engine)
        func six(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 6) }
        #expect(try sink.sent(on: 1).map(classify) == [
            .multiple([(UInt16(0x0030), six(0)), (UInt16(0x0031), six(1))]),
            .multiple([(UInt16(0x0032), six(2)), (UInt16(0x0033), six(3))]),
            // 0x0034 and the 20-octet value together would need 34 octets; alone it is a plain notification.
            .single(opcode: 0x1B, handle: 0x0034, value: six(4)),
            .single(opcode: 0x1B, handle: 0x0040, value: [UInt8](repeating: 0xEE, count: 20)),
            .single(opcode: 0x1B, handle: 0x0041, value: [0x77]),
        ])
        #expect(sink.sent(on: 1).allSatisfy { $0.count <= 4 + 23 })
        let counters = try #require(engine.statistics()[connection: 1]?.counters)
        #expect(counters.sent == 7 && counters.multipleNotificationPDUs == 2 && counters.multipleNotificationValues == 4)
    }

    @Test func largerMTUCarriesMoreValuesPerPDU() throws {
        let (sink, engine) = try stalledEngine(mtu: 247)
        for index in 0..<5 {
            #expect(engine.update([UInt8](repeating: UInt8(index), count: 40), characteristic: 0x0030 + UInt16(index), to: 1))
        }
        release(sink, engine)
        let sent = try sink.sent(on: 1).map(classify)
        // 5 × 44 = 220 ≤ 246.
        #expect(sent == [.multiple((0..<5).map { (0x0030 + UInt16($0), [UInt8](repeating: UInt8($0), count: 40)) })])
        #expect(sink.sent(on: 1).first?.count == 4 + 1 + 220)
    }

    @Test func withoutTheFeatureEachNotificationIsItsOwnPDU() throws {
        for enabledThenDisabled in [false, true] {
            let (sink, engine) = try stalledEngine(enabled: enabledThenDisabled)
            if enabledThenDisabled { engine.setMultipleHandleValueNotifications(false, on: 1) }
            #expect(engine.update([0x01, 0x02], characteristic: 0x0020, to: 1))
            #expect(engine.update([0x03], characteristic: 0x0021, to: 1))
            #expect(engine.update([0x04], characteristic: 0x0022, to: 1))
            release(sink, engine)
            #expect(sink.sent(on: 1) == [
                [0x05, 0x00, 0x04, 0x00, 0x1B, 0x20, 0x00, 0x01, 0x02],
                [0x04, 0x00, 0x04, 0x00, 0x1B, 0x21, 0x00, 0x03],
                [0x04, 0x00, 0x04, 0x00, 0x1B, 0x22, 0x00, 0x04],
            ])
            let counters = try #require(engine.statistics()[connection: 1])
            #expect(!counters.multipleNotificationsEnabled)
            #expect(counters.counters.sent == 3 && counters.counters.multipleNotificationPDUs == 0)
        }
    }

    @Test func indicationsAreNeverCombined() throws {
        let (sink, engine) = try stalledEngine()
        #expect(engine.update([0x01], characteristic: 0x0020, to: 1))
        #expect(engine.update([0xA1], characteristic: 0x0050, policy: .indication, to: 1))
        #expect(engine.update([0xA2], characteristic: 0x0051, policy: .indication, to: 1))
        #expect(engine.update([0x02], characteristic: 0x0021, to: 1))
        release(sink, engine)
        // The indication goes first and alone; the second waits for the confirmation while the
        // notifications leave together.
        #expect(try sink.sent(on: 1).map(classify) == [
            .single(opcode: 0x1D, handle: 0x0050, value: [0xA1]),
            .multiple([(0x0020, [0x01]), (0x0021, [0x02])]),
        ])
        #expect(engine.confirmationReceived(on: 1))
        #expect(try sink.sent(on: 1).map(classify).last == .single(opcode: 0x1D, handle: 0x0051, value: [0xA2]))
        let counters = try #require(engine.statistics()[connection: 1]?.counters)
        #expect(counters.sent == 4 && counters.multipleNotificationValues == 2 && counters.multipleNotificationPDUs == 1)
    }

    @Test func aLoneNotificationIsAPlainHandleValueNotification() throws {
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        engine.setMultipleHandleValueNotifications(true, on: 1)
        #expect(engine.update([0x01, 0x02], characteristic: 0x002A, to: 1))
        #expect(engine.update([0x03], characteristic: 0x002B, to: 1))
        // The sink accepts at once, so only one notification is ever ready: byte-identical to before.
        #expect(sink.sent(on: 1) == [
            [0x05, 0x00, 0x04, 0x00, 0x1B, 0x2A, 0x00, 0x01, 0x02],
            [0x04, 0x00, 0x04, 0x00, 0x1B, 0x2B, 0x00, 0x03],
        ])
        #expect(engine.statistics()[connection: 1]?.counters.multipleNotificationPDUs == 0)
    }

    @Test func aCharacteristicAppearsAtMostOncePerPDU() throws {
        let (sink, engine) = try stalledEngine()
        // FIFO notifications: both values of 0x0020 stay queued.
        #expect(engine.update([0x01], characteristic: 0x0020, policy: .merge(keepEveryValue), to: 1))
        #expect(engine.update([0x02], characteristic: 0x0020, policy: .merge(keepEveryValue), to: 1))
        #expect(engine.update([0x03], characteristic: 0x0021, to: 1))
        #expect(engine.update([0x04], characteristic: 0x0020, policy: .merge(keepEveryValue), to: 1))
        release(sink, engine)
        // Queue order is kept on the wire: the first value alone, then the next run up to the repeat.
        #expect(try sink.sent(on: 1).map(classify) == [
            .single(opcode: 0x1B, handle: 0x0020, value: [0x01]),
            .multiple([(0x0020, [0x02]), (0x0021, [0x03])]),
            .single(opcode: 0x1B, handle: 0x0020, value: [0x04]),
        ])
    }

    @Test func refusedCombinedPDUIsRebuiltWithNewerValuesAndLosesNothing() throws {
        let (sink, engine) = try stalledEngine()
        #expect(engine.update([0x01], characteristic: 0x0020, to: 1))
        #expect(engine.update([0x02], characteristic: 0x0021, to: 1))
        engine.pump()
        #expect(sink.refusals >= 2)
        #expect(engine.update([0x11], characteristic: 0x0020, to: 1))
        #expect(engine.update([0x03], characteristic: 0x0022, to: 1))
        release(sink, engine)
        #expect(try sink.sent(on: 1).map(classify) == [.multiple([(0x0020, [0x11]), (0x0021, [0x02]), (0x0022, [0x03])])])
        let counters = try #require(engine.statistics()[connection: 1]?.counters)
        #expect(counters.enqueued == 4 && counters.coalesced == 1 && counters.sent == 3)
    }

    @Test func valuesWithTheSinkAreNotReplacedByLaterUpdates() throws {
        let (sink, engine) = try stalledEngine()
        #expect(engine.update([0x01], characteristic: 0x0020, to: 1))
        #expect(engine.update([0x02], characteristic: 0x0021, to: 1))
        sink.duringSend.withLock {
            $0 = { [engine, sink] _ in
                // Only during the first PDU (the hook runs before the sink records it).
                guard sink.sent(on: 1).isEmpty else { return }
                // Both queued values are inside the PDU being sent: the newer ones queue behind.
                engine.update([0x21], characteristic: 0x0021, to: 1)
                engine.update([0x20], characteristic: 0x0020, to: 1)
            }
        }
        release(sink, engine)
        #expect(try sink.sent(on: 1).map(classify) == [
            .multiple([(0x0020, [0x01]), (0x0021, [0x02])]),
            .multiple([(0x0021, [0x21]), (0x0020, [0x20])]),
        ])
        let counters = try #require(engine.statistics()[connection: 1]?.counters)
        #expect(counters.coalesced == 0 && counters.sent == 4 && counters.multipleNotificationPDUs == 2)
    }

    @Test func settingTheFeatureOnAnUnknownConnectionIsIgnored() throws {
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink)
        engine.setMultipleHandleValueNotifications(true, on: 7)
        try engine.addConnection(7)
        #expect(engine.statistics()[connection: 7]?.multipleNotificationsEnabled == false)
        engine.setMultipleHandleValueNotifications(true, on: 7)
        engine.setMultipleHandleValueNotifications(true, on: 7)
        #expect(engine.statistics()[connection: 7]?.multipleNotificationsEnabled == true)
    }
}

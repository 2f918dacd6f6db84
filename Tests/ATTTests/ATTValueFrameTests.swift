import Testing
import TestSupport
@testable import ATT

/// The L2CAP frames the notification engine sends (Core v5.4 Vol 3 Part A 3.1 around Part F 3.4.7),
/// byte for byte, and that they carry exactly what the `ATTPDU` builders encode.
@Suite struct ATTValueFrameTests {
    private let long = (0..<600).map { UInt8(truncatingIfNeeded: $0) }

    /// The basic header for an ATT PDU of `length` octets: length LE16, channel 0x0004 LE16.
    private func l2capHeader(_ length: Int) -> [UInt8] {
        [UInt8(length & 0xFF), UInt8(length >> 8), 0x04, 0x00]
    }

    /// A fit with `lengths` added in order, and what each `add` answered.
    private func fitting(_ lengths: [Int], mtu: Int) -> (fit: ATTMultipleNotificationFit, added: [Bool]) {
        var fit = ATTMultipleNotificationFit(mtu: mtu)
        let added = lengths.map { fit.add(valueLength: $0) }
        return (fit, added)
    }

    @Test func notificationAndIndicationLayout() {
        // 3.4.7.1 / 3.4.7.2: opcode, handle LE16, value; the L2CAP length counts those 5 octets.
        #expect(ATTValueFrame.handleValue(.handleValueNotification, handle: 0x0003, value: [0x06, 0x48], length: 2)
                == hex("05 00 04 00 1b 03 00 06 48"))
        #expect(ATTValueFrame.handleValue(.handleValueIndication, handle: 0x1234, value: [0x02, 0x00], length: 2)
                == hex("05 00 04 00 1d 34 12 02 00"))
        #expect(ATTValueFrame.handleValue(.handleValueNotification, handle: 0x0003, value: [], length: 0)
                == hex("03 00 04 00 1b 03 00"))
    }

    @Test func headroomIsZeroOctetsInFront() {
        #expect(ATTValueFrame.handleValue(.handleValueNotification, handle: 0x0003, value: [0x06, 0x48], length: 2, headroom: 5)
                == hex("00 00 00 00 00 05 00 04 00 1b 03 00 06 48"))
        #expect(ATTValueFrame.handleValue(.handleValueNotification, handle: 0x0003, value: [0x06], length: 1, headroom: -2)
                == hex("04 00 04 00 1b 03 00 06"))
    }

    @Test func l2capLengthIsLittleEndianOverTwoOctets() {
        let frame = ATTValueFrame.handleValue(.handleValueNotification, handle: 0x002A, value: long, length: 300, headroom: 1)
        #expect(frame.count == 1 + 4 + 3 + 300)
        #expect(Array(frame.prefix(8)) == hex("00 2f 01 04 00 1b 2a 00"))
        #expect(Array(frame.dropFirst(8)) == Array(long.prefix(300)))
    }

    @Test func lengthBeyondTheValueIsClampedToIt() {
        #expect(ATTValueFrame.handleValue(.handleValueNotification, handle: 3, value: [1, 2], length: 10)
                == hex("05 00 04 00 1b 03 00 01 02"))
    }

    @Test(arguments: [23, 247, 517])
    func truncatedFrameIsTheBuildersPDUInOneMTU(mtu: Int) {
        let length = ATTValueFrame.maximumValueLength(mtu: mtu)
        #expect(length == mtu - 3)
        let notification = ATTValueFrame.handleValue(.handleValueNotification, handle: 3, value: long, length: length, headroom: 2)
        #expect(notification == [0, 0] + l2capHeader(mtu) + ATTPDU.handleValueNotification(handle: 3, value: long, mtu: mtu).encode())
        let indication = ATTValueFrame.handleValue(.handleValueIndication, handle: 3, value: long, length: length)
        #expect(indication == l2capHeader(mtu) + ATTPDU.handleValueIndication(handle: 3, value: long, mtu: mtu).encode())
    }

    @Test func multipleNotificationLayout() {
        // 3.4.7.4: opcode 0x23, then per value handle LE16, Value Length LE16, value; L2CAP length 12.
        let (fit, added) = fitting([1, 2], mtu: 23)
        #expect(added == [true, true])
        let tuples: [(handle: UInt16, value: [UInt8], length: Int)] = [(0x0003, [0x48], 1), (0x0105, [0x02, 0x00], 2)]
        #expect(ATTValueFrame.multipleHandleValueNotification(fit) { tuples[$0] }
                == hex("0c 00 04 00 23 03 00 01 00 48 05 01 02 00 02 00"))
    }

    @Test func multipleNotificationSendsEachValuesTruncatedLength() {
        let (fit, added) = fitting([2, 0], mtu: 23)
        #expect(added == [true, true])
        let tuples: [(handle: UInt16, value: [UInt8], length: Int)] = [(1, [0xAA, 0xBB, 0xCC], 2), (2, [0xDD], 0)]
        #expect(ATTValueFrame.multipleHandleValueNotification(fit) { tuples[$0] }
                == hex("0b 00 04 00 23 01 00 02 00 aa bb 02 00 00 00"))
    }

    @Test(arguments: [23, 247, 517])
    func multipleNotificationFrameIsTheBuildersPDU(mtu: Int) throws {
        let values = (0..<100).map { ATTHandleValue(handle: UInt16($0 + 1), value: [UInt8](repeating: UInt8($0), count: 5)) }
        let built = try #require(ATTPDU.multipleHandleValueNotification(fitting: values, mtu: mtu))
        let fit = fitting(values.map(\.value.count), mtu: mtu).fit
        #expect(fit.count == built.count)
        let frame = ATTValueFrame.multipleHandleValueNotification(fit) { (values[$0].handle, values[$0].value, values[$0].value.count) }
        let pdu = built.pdu.encode()
        #expect(frame == l2capHeader(pdu.count) + pdu)
        #expect(frame.count - 4 <= mtu)
    }

    @Test func fitCountsWholeTuplesInMTUMinusOne() {
        // ATT_MTU 23 leaves 22 octets: two 7-octet values (4 + 7 each) fill them exactly.
        let (fit, added) = fitting([7, 7, 0], mtu: 23)
        #expect(added == [true, true, false])
        #expect(fit.count == 2 && fit.tuplesLength == 22 && fit.isWorthCombining)

        let (tight, tightAdded) = fitting([7, 8], mtu: 23)
        #expect(tightAdded == [true, false])
        #expect(tight.count == 1 && tight.tuplesLength == 11 && !tight.isWorthCombining)
    }

    @Test func fitEndsTheRunAtTheFirstValueThatDoesNotFit() {
        // The last value would fit on its own, but must not overtake the one before it.
        let (fit, added) = fitting([1, 20, 1], mtu: 23)
        #expect(added == [true, false, false])
        #expect(fit.count == 1 && fit.tuplesLength == 5)
    }

    @Test func fitRejectsValuesLongerThanTheValueLengthField() {
        let (fit, added) = fitting([Int(UInt16.max) + 1], mtu: 200_000)
        #expect(added == [false])
        #expect(fit.count == 0 && fit.tuplesLength == 0)
    }
}

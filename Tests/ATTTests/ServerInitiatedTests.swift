import TestSupport
import Testing
@testable import ATT

@Suite struct ServerInitiatedTests {
    @Test func vectors() throws {
        #expect(ATTPDU.handleValueNotification(handle: 3, value: [0x06, 0x48]).encode() == hex("1b 03 00 06 48"))
        #expect(ATTPDU.handleValueIndication(handle: 5, value: [2, 0]).encode() == hex("1d 05 00 02 00"))
        #expect(ATTPDU.handleValueConfirmation.encode() == hex("1e"))
        #expect(try ATTPDU.decode(hex("1b 03 00")) == .handleValueNotification(handle: 3, value: []))
        #expect(try ATTPDU.decode(hex("1d 05 00 02 00")) == .handleValueIndication(handle: 5, value: [2, 0]))
        #expect(try ATTPDU.decode(hex("1e")) == .handleValueConfirmation)
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("1e 00")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("1b 03")) }
    }

    @Test func multipleHandleValueNotificationVector() throws {
        let pdu = ATTPDU.multipleHandleValueNotification([ATTHandleValue(handle: 3, value: [0x48]), ATTHandleValue(handle: 5, value: [2, 0])])
        #expect(pdu.encode() == hex("23 03 00 01 00 48 05 00 02 00 02 00"))
        #expect(try ATTPDU.decode(hex("23 03 00 01 00 48 05 00 02 00 02 00")) == pdu)
        #expect(try ATTPDU.decode(hex("23 03 00 00 00 05 00 00 00"))
                == .multipleHandleValueNotification([ATTHandleValue(handle: 3, value: []), ATTHandleValue(handle: 5, value: [])]))
    }

    @Test func multipleHandleValueNotificationRejectsCutTuples() {
        for bytes in ["23", "23 03 00 01 00 48", "23 03 00 01 00 48 05 00 02 00 02", "23 03 00 01 00 48 05"] {
            #expect(throws: ATTDecodingError.self, "\(bytes)") { try ATTPDU.decode(hex(bytes)) }
        }
    }

    private let long = (0..<600).map { UInt8(truncatingIfNeeded: $0) }

    @Test(arguments: [23, 247, 517])
    func notificationAndIndicationCutToMTUMinusThree(mtu: Int) {
        #expect(ATTPDU.handleValueNotification(handle: 3, value: long, mtu: mtu)
                == .handleValueNotification(handle: 3, value: Array(long.prefix(mtu - 3))))
        #expect(ATTPDU.handleValueIndication(handle: 3, value: long, mtu: mtu).encode().count == mtu)
        #expect(ATTPDU.handleValueNotification(handle: 3, value: [1], mtu: mtu) == .handleValueNotification(handle: 3, value: [1]))
    }

    @Test(arguments: [(23, 2), (247, 27), (517, 57)])
    func multipleNotificationKeepsWholeTuples(mtu: Int, count: Int) throws {
        let values = (0..<100).map { ATTHandleValue(handle: UInt16($0 + 1), value: [UInt8](repeating: UInt8($0), count: 5)) }
        let result = try #require(ATTPDU.multipleHandleValueNotification(fitting: values, mtu: mtu))
        #expect(result.count == count)
        #expect(result.pdu == .multipleHandleValueNotification(Array(values.prefix(count))))
        #expect(result.pdu.encode().count <= mtu)
        #expect(result.pdu.encode().count + 9 > mtu)
    }

    @Test func multipleNotificationNeedsTwoTuples() {
        let big = [ATTHandleValue(handle: 1, value: [UInt8](repeating: 0, count: 14)), ATTHandleValue(handle: 2, value: [1])]
        // 1 + 18 + 5 = 24 > 23: only one tuple fits, so a plain notification is the right PDU.
        #expect(ATTPDU.multipleHandleValueNotification(fitting: big, mtu: 23) == nil)
        #expect(ATTPDU.multipleHandleValueNotification(fitting: big, mtu: 247)?.count == 2)
        #expect(ATTPDU.multipleHandleValueNotification(fitting: [], mtu: 247) == nil)
        #expect(ATTPDU.multipleHandleValueNotification(fitting: [ATTHandleValue(handle: 1, value: [1])], mtu: 247) == nil)
    }
}

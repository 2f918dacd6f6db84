import ATT
import BLECore
import GATT
import GATTServer
import Testing
import TestSupport

@Suite(.scaledTimeLimit(minutes: 1)) struct DiscoveryTests {
    @Test func primaryServicesByGroupTypeAtMTU23() async throws {
        let harness = try Harness()
        // Three 16-bit services fit (6 octets each), the 128-bit one comes alone, then Attribute Not Found.
        #expect(await harness.exchange("10 0100 ffff 0028")
                == h("11 06 0100 0700 0018 0800 0f00 0118 1000 1700 0d18"))
        #expect(await harness.exchange("10 1800 ffff 0028")
                == h("11 14 1800 2300") + le(TestDatabase.customService))
        #expect(await harness.exchange("10 2400 ffff 0028") == h("01 10 2400 0a"))
    }

    @Test func secondaryServicesAndOtherGroupTypes() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("10 0100 ffff 0128") == h("01 10 0100 0a"))
        // Characteristic declarations are not a grouping type for this request.
        #expect(await harness.exchange("10 0100 ffff 0328") == h("01 10 0100 10"))
        #expect(await harness.exchange("10 0100 ffff " + le(BluetoothUUID(0x2800))) == h("11 06 0100 0700 0018 0800 0f00 0118 1000 1700 0d18"))
    }

    @Test func invalidHandleRanges() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("10 0000 ffff 0028") == h("01 10 0000 01"))
        #expect(await harness.exchange("10 0500 0100 0028") == h("01 10 0500 01"))
        #expect(await harness.exchange("04 0000 0100") == h("01 04 0000 01"))
        #expect(await harness.exchange("04 0300 0200") == h("01 04 0300 01"))
        #expect(await harness.exchange("06 0000 ffff 0028 0d18") == h("01 06 0000 01"))
        #expect(await harness.exchange("08 0900 0800 0328") == h("01 08 0900 01"))
        // The group type is checked after the range.
        #expect(await harness.exchange("10 0500 0100 0328") == h("01 10 0500 01"))
    }

    @Test func primaryServiceByUUID() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("06 0100 ffff 0028 0d18") == h("07 1000 1700"))
        #expect(await harness.exchange("06 0100 ffff 0028 " + le(TestDatabase.customService)) == h("07 1800 2300"))
        // A 16-bit service UUID sent in its 128-bit form is the same service.
        #expect(await harness.exchange("06 0100 ffff 0028 " + le(BluetoothUUID(0x180D))) == h("07 1000 1700"))
        #expect(await harness.exchange("06 1100 ffff 0028 0d18") == h("01 06 1100 0a"))
        #expect(await harness.exchange("06 0100 ffff 0028 0f18") == h("01 06 0100 0a"))
        // A non-grouping attribute reports its own handle as the group end.
        #expect(await harness.exchange("06 0100 ffff 0129 " + Array("Setpoint".utf8).hexString) == h("07 1b00 1b00"))
    }

    @Test func characteristicDeclarationsByReadByType() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("08 1000 1700 0328")
                == h("09 07 1100 10 1200 372a 1400 02 1500 382a 1600 08 1700 392a"))
        #expect(await harness.exchange("08 1700 1700 0328") == h("01 08 1700 0a"))
        // 128-bit declarations (21 octets) fit one per response at MTU 23.
        #expect(await harness.exchange("08 1800 2300 0328") == h("09 15 1900 0e 1a00") + le(TestDatabase.setpointUUID))
        #expect(await harness.exchange("08 1a00 2300 0328") == h("09 15 1d00 02 1e00") + le(TestDatabase.longUUID))
        // GATT service: Service Changed (indicate), Client Supported Features (read, write), Database Hash.
        #expect(await harness.exchange("08 0800 0f00 0328")
                == h("09 07 0900 20 0a00 052a 0c00 0a 0d00 292b 0e00 02 0f00 2a2b"))
    }

    @Test func descriptorsByFindInformation() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("04 1300 1300") == h("05 01 1300 0229"))
        #expect(await harness.exchange("04 1b00 1c00") == h("05 01 1b00 0129 1c00 0629"))
        // One UUID format per response: the 128-bit value type ends the 16-bit run.
        #expect(await harness.exchange("04 1800 1a00") == h("05 01 1800 0028 1900 0328"))
        #expect(await harness.exchange("04 1a00 1a00") == h("05 02 1a00") + le(TestDatabase.setpointUUID))
        #expect(await harness.exchange("04 2300 ffff") == h("05 01 2300 0229"))
        #expect(await harness.exchange("04 2400 ffff") == h("01 04 2400 0a"))
        // Five 16-bit pairs fit in MTU 23.
        #expect(await harness.exchange("04 0100 ffff") == h("05 01 0100 0028 0200 0328 0300 002a 0400 0328 0500 012a"))
    }

    @Test func readByTypeServesLocalValuesTogetherAndDynamicValuesAlone() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x12, 0x34], for: TestDatabase.setpoint)
        // Every CCCD is the connection's own value, served by the server itself.
        #expect(await harness.exchange("08 0100 ffff 0229") == h("09 04 0b00 0000 1300 0000 2300 0000"))
        #expect(await harness.exchange("08 0100 ffff " + le(TestDatabase.setpointUUID)) == h("09 04 1a00 1234"))
        #expect(harness.delegate.reads == [GATTReadRequest(link: harness.link(1), characteristic: TestDatabase.setpoint)])
        #expect(await harness.exchange("08 0100 ffff 002a") == h("09 0b 0300") + Array("blesensor".utf8).hexString)
        #expect(await harness.exchange("08 0100 ffff 2a2b") == h("09 12 0f00") + harness.server.database.databaseHash.hexString)
    }

    @Test func readByTypeAnswersTheErrorOfTheFirstAttributeOnly() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("08 0100 ffff 372a") == h("01 08 1200 02"))
        #expect(await harness.exchange("08 0100 ffff " + le(TestDatabase.secureUUID)) == h("01 08 2000 05"))
        harness.delegate.state.withLock { $0.readError = ATTErrorCode(0x80) }
        #expect(await harness.exchange("08 0100 ffff " + le(TestDatabase.setpointUUID)) == h("01 08 1a00 80"))
        #expect(await harness.exchange("08 0100 ffff 9999") == h("01 08 0100 0a"))
    }
}

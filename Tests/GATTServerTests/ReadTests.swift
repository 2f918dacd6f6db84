import ATT
import BLECore
import GATT
import GATTServer
import Testing
import TestSupport

@Suite(.scaledTimeLimit(minutes: 1)) struct ReadTests {
    let long = TestDatabase.longValue

    @Test func shortStaticValues() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("0a 1500") == "0b01")
        #expect(await harness.exchange("0a 0300") == h("0b") + Array("blesensor".utf8).hexString)
        #expect(await harness.exchange("0a 0500") == h("0b 4103"))
        #expect(await harness.exchange("0a 0700") == h("0b ffff ffff 0000 ffff"))
        #expect(await harness.exchange("0a 1b00") == h("0b") + Array("Setpoint".utf8).hexString)
        // Declarations.
        #expect(await harness.exchange("0a 1000") == h("0b 0d18"))
        #expect(await harness.exchange("0a 1400") == h("0b 02 1500 382a"))
        #expect(harness.delegate.reads.isEmpty)
    }

    @Test func longStaticValueInBlobs() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("0a 1e00") == "0b" + long.prefix(22).hexString)
        #expect(await harness.exchange("0c 1e00 1600") == "0d" + long[22..<44].hexString)
        #expect(await harness.exchange("0c 1e00 7e01") == "0d" + long[382..<400].hexString)
        // Offset equal to the length: an empty part; one past it: Invalid Offset.
        #expect(await harness.exchange("0c 1e00 9001") == "0d")
        #expect(await harness.exchange("0c 1e00 9101") == h("01 0c 1e00 07"))
    }

    @Test func blobOfAShortValueIsServedNotRefused() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("0c 1500 0000") == "0d01")
        #expect(await harness.exchange("0c 1500 0100") == "0d")
        #expect(await harness.exchange("0c 1500 0200") == h("01 0c 1500 07"))
    }

    @Test func dynamicValuesComeFromTheDelegate() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x12, 0x34], for: TestDatabase.setpoint)
        harness.delegate.setValue([0x00, 0x64], for: TestDatabase.setpoint, descriptor: TestDatabase.validRange)
        #expect(await harness.exchange("0a 1a00") == h("0b 1234"))
        #expect(await harness.exchange("0a 1c00", on: 2) == h("0b 0064"))
        #expect(harness.delegate.reads == [
            GATTReadRequest(link: harness.link(1), characteristic: TestDatabase.setpoint),
            GATTReadRequest(link: harness.link(2), characteristic: TestDatabase.setpoint, descriptor: TestDatabase.validRange),
        ])
    }

    @Test func aDelegateErrorIsTheErrorResponse() async throws {
        let harness = try Harness()
        harness.delegate.state.withLock { $0.readError = ATTErrorCode(0x81) }
        #expect(await harness.exchange("0a 1a00") == h("01 0a 1a00 81"))
        #expect(await harness.exchange("0c 1c00 0000") == h("01 0c 1c00 81"))
    }

    @Test func longDynamicValueKeepsTheSnapshotOfTheFirstRead() async throws {
        let harness = try Harness()
        let first = (0..<60).map { UInt8($0) }
        harness.delegate.setValue(first, for: TestDatabase.setpoint)
        #expect(await harness.exchange("0a 1a00") == "0b" + first.prefix(22).hexString)
        // The application value changes in the middle of the long read.
        harness.delegate.setValue([UInt8](repeating: 0xEE, count: 60), for: TestDatabase.setpoint)
        #expect(await harness.exchange("0c 1a00 1600") == "0d" + first[22..<44].hexString)
        #expect(await harness.exchange("0c 1a00 2c00") == "0d" + first[44..<60].hexString)
        #expect(await harness.exchange("0c 1a00 3d00") == h("01 0c 1a00 07"))
        #expect(harness.delegate.reads.count == 1)
        // Another connection has its own snapshot and sees the new value.
        #expect(await harness.exchange("0c 1a00 1600", on: 2) == "0d" + String(repeating: "ee", count: 22))
        // A read at offset 0 starts over with the current value.
        #expect(await harness.exchange("0c 1a00 0000") == "0d" + String(repeating: "ee", count: 22))
        #expect(harness.delegate.reads.count == 3)
    }

    @Test func aWriteEndsTheSnapshot() async throws {
        let harness = try Harness()
        harness.delegate.setValue((0..<40).map { UInt8($0) }, for: TestDatabase.setpoint)
        #expect(await harness.exchange("0a 1a00") == "0b" + (0..<22).map { UInt8($0) }.hexString)
        #expect(await harness.exchange("12 1a00 aabb", on: 2) == "13")
        #expect(await harness.exchange("0c 1a00 0100") == "0d" + h("bb"))
    }

    @Test func readErrors() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("0a 0000") == h("01 0a 0000 01"))
        #expect(await harness.exchange("0a 2400") == h("01 0a 2400 01"))
        #expect(await harness.exchange("0a ffff") == h("01 0a ffff 01"))
        #expect(await harness.exchange("0c 2400 0000") == h("01 0c 2400 01"))
        // Notify-only, indicate-only and Service Changed values are not readable.
        #expect(await harness.exchange("0a 1200") == h("01 0a 1200 02"))
        #expect(await harness.exchange("0a 2200") == h("01 0a 2200 02"))
        #expect(await harness.exchange("0a 0a00") == h("01 0a 0a00 02"))
        #expect(await harness.exchange("0c 1200 0000") == h("01 0c 1200 02"))
        #expect(harness.delegate.reads.isEmpty)
    }

    @Test func securityIsCheckedInOrder() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x5A], for: TestDatabase.secure)
        // Unencrypted: a central without a bond must pair (Insufficient Authentication), a bonded
        // one only has to encrypt with its keys (Insufficient Encryption).
        #expect(await harness.exchange("0a 2000") == h("01 0a 2000 05"))
        harness.link(1).setBonded(true)
        #expect(await harness.exchange("0a 2000") == h("01 0a 2000 0f"))
        harness.encrypt(1, keySize: 7)
        #expect(await harness.exchange("0a 2000") == h("01 0a 2000 0c"))
        harness.encrypt(1, keySize: 16)
        #expect(await harness.exchange("0a 2000") == h("0b 5a"))
        // Writing needs authentication first, then the key size.
        #expect(await harness.exchange("12 2000 01") == h("01 12 2000 05"))
        harness.encrypt(1, keySize: 7, authenticated: true)
        #expect(await harness.exchange("12 2000 01") == h("01 12 2000 0c"))
        harness.encrypt(1, keySize: 16, authenticated: true)
        #expect(await harness.exchange("12 2000 01") == "13")
        // The other connection is still unencrypted.
        #expect(await harness.exchange("0a 2000", on: 2) == h("01 0a 2000 05"))
        #expect(await harness.exchange("12 2000 01", on: 2) == h("01 12 2000 05"))
    }

    @Test func readMultiple() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x12, 0x34], for: TestDatabase.setpoint)
        #expect(await harness.exchange("0e 1500 0500") == h("0f 01 4103"))
        #expect(await harness.exchange("0e 1500 1a00 0500") == h("0f 01 1234 4103"))
        // Cut to MTU − 1.
        #expect(await harness.exchange("0e 1500 1e00") == h("0f 01") + long.prefix(21).hexString)
        // The first failing handle in request order is answered.
        #expect(await harness.exchange("0e 1500 9900 1200") == h("01 0e 9900 01"))
        #expect(await harness.exchange("0e 1500 1200 9900") == h("01 0e 1200 02"))
        #expect(await harness.exchange("0e 2000 1500") == h("01 0e 2000 05"))
    }

    @Test func readMultipleVariable() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x12, 0x34], for: TestDatabase.setpoint)
        #expect(await harness.exchange("20 1500 0300 1a00")
                == h("21 0100 01 0900") + Array("blesensor".utf8).hexString + h("0200 1234"))
        // The last value is cut inside, its length field still says 400 (0x0190).
        #expect(await harness.exchange("20 1500 1e00") == h("21 0100 01 9001") + long.prefix(17).hexString)
        #expect(await harness.exchange("20 1500 0000") == h("01 20 0000 01"))
        #expect(await harness.exchange("20 2200 1500") == h("01 20 2200 02"))
    }
}

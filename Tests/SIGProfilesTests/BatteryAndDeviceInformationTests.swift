import Testing
@testable import SIGProfiles

@Suite struct BatteryLevelTests {
    @Test func levels() throws {
        #expect(try BatteryLevel(decoding: [0x64]).percent == 100)
        #expect(try BatteryLevel(decoding: [0x00]).percent == 0)
        #expect(try BatteryLevel(percent: 57).encoded == [0x39])
    }

    @Test func rejectsAbove100() {
        #expect(throws: SIGDecodingError.outOfRange(field: "battery level", value: "101 %", allowed: "0...100 %")) {
            try BatteryLevel(decoding: [0x65])
        }
        #expect(throws: SIGEncodingError.self) { try BatteryLevel(percent: 101) }
        #expect(throws: SIGDecodingError.self) { try BatteryLevel(decoding: []) }
        #expect(throws: SIGDecodingError.self) { try BatteryLevel(decoding: [0x10, 0x00]) }
    }
}

@Suite struct DeviceInformationTests {
    @Test func strings() throws {
        let value = try DeviceInformationString(kind: .modelNumber, decoding: Array("BS-1 µ".utf8))
        #expect(value.text == "BS-1 µ")
        #expect(try DeviceInformationString(kind: .firmwareRevision, text: "1.2.3").encoded == [0x31, 0x2E, 0x32, 0x2E, 0x33])
        #expect(try DeviceInformationString(kind: .serialNumber, decoding: [0x41, 0x00, 0x00]).text == "A")
        #expect(try DeviceInformationString(kind: .softwareRevision, decoding: []).text == "")
    }

    @Test func malformedStrings() {
        #expect(throws: SIGDecodingError.invalidUTF8(value: "Manufacturer Name String")) {
            try DeviceInformationString(kind: .manufacturerName, decoding: [0x41, 0xC3, 0x28])
        }
        #expect(throws: SIGDecodingError.self) {
            try DeviceInformationString(kind: .hardwareRevision, decoding: [UInt8](repeating: 0x41, count: 513))
        }
        #expect(throws: SIGEncodingError.self) {
            try DeviceInformationString(kind: .hardwareRevision, text: String(repeating: "x", count: 513))
        }
    }

    @Test func pnpID() throws {
        // SIG source, vendor 0x0059, product 0x0001, version 0x0110 = 1.1.0.
        let bytes: [UInt8] = [0x01, 0x59, 0x00, 0x01, 0x00, 0x10, 0x01]
        let value = try PnPID(decoding: bytes)
        #expect(value == PnPID(vendorIDSource: .bluetoothSIG, vendorID: 0x0059, productID: 0x0001, productVersion: 0x0110))
        #expect(value.versionText == "1.1.0")
        #expect(value.encoded == bytes)
        #expect(try PnPID(decoding: [0x02, 0x6B, 0x1D, 0x34, 0x12, 0x00, 0x02]).vendorIDSource == .usbImplementersForum)
    }

    @Test func pnpIDMalformed() {
        #expect(throws: SIGDecodingError.reservedValue(field: "vendor ID source", value: "0x00",
                                                       allowed: "0x01 (Bluetooth SIG), 0x02 (USB Implementer's Forum)")) {
            try PnPID(decoding: [0x00, 0x59, 0x00, 0x01, 0x00, 0x10, 0x01])
        }
        #expect(throws: SIGDecodingError.wrongLength(value: "PnP ID", expected: 7, actual: 6)) {
            try PnPID(decoding: [0x01, 0x59, 0x00, 0x01, 0x00, 0x10])
        }
    }
}

import Testing
@testable import BLECore

@Suite struct ByteReaderTests {
    @Test func readsLittleEndianFields() throws {
        var reader = ByteReader([0x01, 0x34, 0x12, 0x56, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12])
        #expect(try reader.readUInt8() == 0x01)
        #expect(try reader.readUInt16() == 0x1234)
        #expect(try reader.readUInt24() == 0x12_3456)
        #expect(try reader.readUInt32() == 0x1234_5678)
        #expect(reader.isAtEnd)
    }

    @Test func truncatedReadThrowsWithoutMovingOn() {
        var reader = ByteReader([0x01])
        #expect(throws: ByteReaderError.truncated(needed: 2, available: 1, offset: 0)) { try reader.readUInt16() }
        #expect(reader.offset == 0)
        #expect(throws: ByteReaderError.self) { try reader.readBytes(-1) }
    }

    /// A slice keeps its parent's indices; the reader reads it in place and counts from its start.
    @Test func readsASliceInPlaceWithOffsetsFromItsOwnStart() throws {
        let parent: [UInt8] = [0xEE, 0xEE, 0x01, 0x34, 0x12, 0xAA, 0xBB, 0xEE]
        var reader = ByteReader(parent[2..<7])
        #expect(reader.remainingCount == 5)
        #expect(try reader.readUInt8() == 0x01)
        #expect(try reader.readUInt16() == 0x1234)
        #expect(throws: ByteReaderError.truncated(needed: 3, available: 2, offset: 3)) { try reader.readBytes(3) }
        #expect(try reader.readBytes(1) == [0xAA])
        #expect(reader.readRemaining() == [0xBB])
        #expect(reader.isAtEnd)
        #expect(throws: ByteReaderError.truncated(needed: 1, available: 0, offset: 5)) { try reader.readUInt8() }
    }

    @Test func writerRoundTrips() throws {
        var writer = ByteWriter()
        writer.append(UInt16(0xABCD))
        writer.appendUInt24(0x010203)
        writer.append(UInt32(0xDEADBEEF))
        #expect(writer.bytes == [0xCD, 0xAB, 0x03, 0x02, 0x01, 0xEF, 0xBE, 0xAD, 0xDE])
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readUInt16() == 0xABCD)
        #expect(try reader.readUInt24() == 0x010203)
        #expect(try reader.readUInt32() == 0xDEADBEEF)
        #expect(reader.isAtEnd)
    }

    @Test func hexParsing() throws {
        #expect(try [UInt8](hex: "0x01 0A:ff") == [0x01, 0x0A, 0xFF])
        #expect(throws: HexDecodingError.oddLength(3)) { try [UInt8](hex: "abc") }
        #expect([UInt8]([0x00, 0xAB]).hexString == "00ab")
        #expect(UInt8(0x05).hexLiteral == "0x05")
        #expect(UInt16(0x2A).hexLiteral == "0x002A")
        #expect(UInt16(0xFFFF).hexLiteral == "0xFFFF")
    }
}

@Suite struct AddressAndUUIDTests {
    @Test func addressTextIsMostSignificantFirst() throws {
        let address = try #require(BluetoothAddress("C0:11:22:33:44:55"))
        #expect(address.littleEndianBytes == [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])
        #expect(address.description == "C0:11:22:33:44:55")
        #expect(BluetoothAddress("C0:11:22:33:44") == nil)
        #expect(BluetoothAddress("G0:11:22:33:44:55") == nil)
    }

    @Test func randomStaticAddressesHaveTopBitsSet() {
        for _ in 0..<100 {
            let address = BluetoothAddress.randomStatic()
            #expect(address.isValidRandomStatic)
            #expect(address.littleEndianBytes[5] & 0xC0 == 0xC0)
        }
        #expect(!BluetoothAddress("00:11:22:33:44:55")!.isValidRandomStatic)
        #expect(!BluetoothAddress("FF:FF:FF:FF:FF:FF")!.isValidRandomStatic)
    }

    @Test func sixteenBitUUIDsLiveInTheBaseUUID() throws {
        let heartRate = BluetoothUUID(0x180D)
        #expect(heartRate.description == "180D")
        #expect(BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB") == heartRate)
        #expect(heartRate.shortestLittleEndian == [0x0D, 0x18])
        #expect(heartRate.littleEndian128 == [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80,
                                               0x00, 0x10, 0x00, 0x00, 0x0D, 0x18, 0x00, 0x00])
        let custom = try #require(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        #expect(custom.uint16 == nil)
        #expect(custom.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(BluetoothUUID(littleEndian: custom.littleEndian128) == custom)
        #expect(BluetoothUUID(uint32: 0x1234_5678).uint16 == nil)
        #expect(BluetoothUUID(uint32: 0x1234_5678).uint32 == 0x1234_5678)
        #expect(BluetoothUUID("12345") == nil)
    }
}

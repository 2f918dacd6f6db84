import TestSupport
import Testing
import BLECore
@testable import HCI

/// The controller side: command packets from a host, split and validated (Vol 4 Part E 5.4.1).
@Suite struct CommandDecodingTests {
    @Test func splitsOpcodeAndParameters() throws {
        let packet = try HCICommandPacket(body: hex("0a20 01 01")[...])
        #expect(packet.opcode == .leSetAdvertisingEnable)
        #expect(packet.opcode.ogf == 0x08 && packet.opcode.ocf == 0x000A)
        #expect(packet.parameters == [0x01])
        #expect(try packet.decode(HCILESetAdvertisingEnable.self) == HCILESetAdvertisingEnable(enable: true))
        #expect(try HCICommandPacket(body: hex("030c00")[...]) == HCICommandPacket(opcode: .reset, parameters: []))
    }

    @Test func decodesFromASliceThatDoesNotStartAtZero() throws {
        let frame = hex("01 0a20 01 00")
        let packet = try #require(HCIPacket(h4Bytes: frame))
        #expect(packet.body.startIndex == 1)
        #expect(try HCICommandPacket(body: packet.body).decode(HCILESetAdvertisingEnable.self).enable == false)
    }

    @Test func lengthFieldMustMatch() throws {
        // Parameter_Total_Length says 2 but 1 follows, then says 0 but 1 follows.
        let tooShort = hex("0a20 02 01"), tooLong = hex("030c 00 00")
        #expect(isUnexpectedLength(decodingError { () throws(HCIDecodingError) in try HCICommandPacket(body: tooShort[...]) },
                                   expected: 2, actual: 1))
        #expect(isUnexpectedLength(decodingError { () throws(HCIDecodingError) in try HCICommandPacket(body: tooLong[...]) },
                                   expected: 0, actual: 1))
        #expect(isTruncated(decodingError { () throws(HCIDecodingError) in try HCICommandPacket(body: [0x03, 0x0C][...]) }))
        #expect(isTruncated(decodingError { () throws(HCIDecodingError) in try HCICommandPacket(body: [][...]) }))
    }

    @Test func decodeChecksOpcodeAndLeftovers() {
        let reset = HCICommandPacket(opcode: .reset, parameters: [])
        #expect(decodingError { () throws(HCIDecodingError) in try reset.decode(HCIReadBDADDR.self) }
                == .wrongOpcode(expected: .readBDADDR, actual: .reset))
        // Reset takes no parameters: a stray byte is an error, not silently ignored.
        let resetWithByte = HCICommandPacket(opcode: .reset, parameters: [0x00])
        #expect(isUnexpectedLength(decodingError { () throws(HCIDecodingError) in try resetWithByte.decode(HCIReset.self) },
                                   expected: 0, actual: 1))
        let enableTwoBytes = HCICommandPacket(opcode: .leSetAdvertisingEnable, parameters: [0x01, 0x01])
        #expect(isUnexpectedLength(decodingError { () throws(HCIDecodingError) in
            try enableTwoBytes.decode(HCILESetAdvertisingEnable.self) }, expected: 1, actual: 2))
        let shortDisconnect = HCICommandPacket(opcode: .disconnect, parameters: [0x40, 0x00])
        #expect(isTruncated(decodingError { () throws(HCIDecodingError) in try shortDisconnect.decode(HCIDisconnect.self) }))
    }

    @Test func rejectsOutOfRangeValues() throws {
        func error<C: HCICommand>(_ type: C.Type, _ parametersHex: String) -> HCIDecodingError? {
            let parameters = hex(parametersHex)
            return decodingError { () throws(HCIDecodingError) in try HCICommandPacket(opcode: C.opcode, parameters: parameters).decode(C.self) }
        }
        #expect(isInvalidValue(error(HCILESetAdvertisingEnable.self, "02"), field: "enable", value: 2))
        #expect(isInvalidValue(error(HCILESetScanEnable.self, "0200"), field: "enable", value: 2))
        #expect(isInvalidValue(error(HCILESetScanEnable.self, "0102"), field: "filter duplicates", value: 2))
        #expect(isInvalidValue(error(HCILESetScanParameters.self, "02 1000 1000 00 00"), field: "scan type", value: 2))
        #expect(isInvalidValue(error(HCILESetScanParameters.self, "01 1000 1000 04 00"), field: "own address type", value: 4))
        #expect(isInvalidValue(error(HCILESetAdvertisingParameters.self, "a000 a000 05 00 00 000000000000 07 00"),
                               field: "advertising type", value: 5))
        #expect(isInvalidValue(error(HCILESetAdvertisingParameters.self, "a000 a000 00 04 00 000000000000 07 00"),
                               field: "own address type", value: 4))
        // Peer_Address_Type of advertising parameters is public or random only.
        #expect(isInvalidValue(error(HCILESetAdvertisingParameters.self, "a000 a000 01 00 02 000000000000 07 00"),
                               field: "peer address type", value: 2))
        #expect(isInvalidValue(error(HCILESetAdvertisingData.self, "20" + String(repeating: "00", count: 31)),
                               field: "data length", value: 32))
        #expect(isInvalidValue(error(HCILESetScanResponseData.self, "ff" + String(repeating: "00", count: 31)),
                               field: "data length", value: 255))
        let createConnectionTail = "000000000000 00 1800 2800 0000 f401 0000 0000"
        #expect(isInvalidValue(error(HCILECreateConnection.self, "6000 6000 02 00 " + createConnectionTail),
                               field: "initiator filter policy", value: 2))
        #expect(isInvalidValue(error(HCILECreateConnection.self, "6000 6000 00 04 000000000000 00 1800 2800 0000 f401 0000 0000"),
                               field: "peer address type", value: 4))
        #expect(isInvalidValue(error(HCILECreateConnection.self, "6000 6000 00 00 000000000000 09 1800 2800 0000 f401 0000 0000"),
                               field: "own address type", value: 9))
    }

    @Test func advertisingDataKeepsOnlyTheDeclaredLength() throws {
        // Bytes past Advertising_Data_Length are padding and must not leak into the payload.
        let parameters = hex("03 020106" + String(repeating: "ee", count: 28))
        let command = try HCICommandPacket(opcode: .leSetAdvertisingData, parameters: parameters).decode(HCILESetAdvertisingData.self)
        #expect(command.payload.data == [0x02, 0x01, 0x06])
    }

    @Test func handlesAreMaskedToTwelveBits() throws {
        // The top four bits of a Connection_Handle field are reserved (Vol 4 Part E 5.4.2 / 7.1.6).
        let disconnect = try HCICommandPacket(opcode: .disconnect, parameters: hex("40f0 13")).decode(HCIDisconnect.self)
        #expect(disconnect.handle == 0x0040)
        #expect(disconnect.reason == .remoteUserTerminated)
    }
}

/// Return parameters in Command Complete, decoded from spec-shaped bytes (Vol 4 Part E 7.3-7.8).
@Suite struct ReturnParameterTests {
    @Test func statusOnly() throws {
        #expect(try decodeReturn(HCIStatusReturn.self, "00").status == .success)
        let failed = try decodeReturn(HCIStatusReturn.self, "0c")
        #expect(failed.status == .commandDisallowed && !failed.status.isSuccess)
    }

    @Test func handleReturn() throws {
        let value = try decodeReturn(HCIHandleReturn.self, "00 4000")
        #expect(value == HCIHandleReturn(status: .success, handle: 0x0040))
        #expect(try HCIHandleReturn(decoding: hex("02 4030")) == HCIHandleReturn(status: .unknownConnectionIdentifier, handle: 0x0040))
    }

    @Test func localVersionInformation() throws {
        // HCI 5.3 (0x0C), revision 0x0100, LMP 5.3, company 0x0002 (Intel), LMP subversion 0x1234.
        let value = try decodeReturn(HCILocalVersionInformation.self, "00 0c 0001 0c 0200 3412")
        #expect(value == HCILocalVersionInformation(hciVersion: 0x0C, hciRevision: 0x0100, lmpVersion: 0x0C,
                                                    manufacturer: 0x0002, lmpSubversion: 0x1234))
    }

    @Test func supportedCommands() throws {
        var octets = [UInt8](repeating: 0, count: 64)
        octets[5] = 0xC0   // Set Event Mask, Reset
        octets[25] = 0xF7  // LE Set Event Mask .. LE Set Advertising Data, without bit 3
        octets[41] = 0x20  // LE Read Buffer Size v2
        let value = try decodeReturn(HCISupportedCommandsReturn.self, "00" + octets.hexString)
        #expect(value.commands.octets == octets)
        #expect(value.commands.supports(.reset) && value.commands.supports(.setEventMask))
        #expect(value.commands.supports(.leSetAdvertisingData) && value.commands.supports(.leReadBufferSizeV2))
        #expect(!value.commands.supports(.leSetAdvertisingEnable))
        #expect(!value.commands.supports(.disconnect))
    }

    @Test func features() throws {
        // LMP features of an LE-only controller: bit 37 BR/EDR Not Supported, bit 38 LE Supported (octet 4).
        let lmp = try decodeReturn(HCIFeaturesReturn.self, "00 0000000060000000")
        #expect(lmp.features & HCIFeaturesReturn.lmpLESupported != 0)
        #expect(lmp.features & HCIFeaturesReturn.lmpBREDRNotSupported != 0)
        #expect(lmp.features == 0x60_0000_0000)
        // LE features: bit 0 LE Encryption, bit 5 LE Data Packet Length Extension.
        let le = try decodeReturn(HCIFeaturesReturn.self, "00 2100000000000000")
        #expect(le.features == HCILEReadLocalSupportedFeatures.leEncryption | HCILEReadLocalSupportedFeatures.dataPacketLengthExtension)
    }

    @Test func bufferSizes() throws {
        // The "ACL MTU 1021:8 SCO MTU 64:1" many USB dongles report.
        #expect(try decodeReturn(HCIBufferSizeReturn.self, "00 fd03 40 0800 0100")
                == HCIBufferSizeReturn(aclDataPacketLength: 1021, scoDataPacketLength: 64, totalACLDataPackets: 8, totalSCODataPackets: 1))
        #expect(try decodeReturn(HCILEBufferSizeReturn.self, "00 1b00 08")
                == HCILEBufferSizeReturn(aclDataPacketLength: 27, totalACLDataPackets: 8))
        #expect(try decodeReturn(HCILEBufferSizeReturn.self, "00 0000 00").aclDataPacketLength == 0)
        #expect(try decodeReturn(HCILEBufferSizeV2Return.self, "00 fb00 0a fb00 04")
                == HCILEBufferSizeV2Return(aclDataPacketLength: 251, totalACLDataPackets: 10,
                                           isoDataPacketLength: 251, totalISODataPackets: 4))
    }

    @Test func bdAddress() throws {
        let value = try decodeReturn(HCIBDADDRReturn.self, "00 554433 2211c0")
        #expect(value.address.description == "C0:11:22:33:44:55")
    }

    @Test func txPowerIsSigned() throws {
        #expect(try decodeReturn(HCITxPowerReturn.self, "00 f8").txPower == -8)
        #expect(try decodeReturn(HCITxPowerReturn.self, "00 0a").txPower == 10)
    }

    @Test func dataLengths() throws {
        // LE_States of a controller with every combination up to bit 41, and one without bit 38.
        let states = try decodeReturn(HCILESupportedStatesReturn.self, "00 ffffffffff030000").states
        #expect(states.rawValue == 0x3FF_FFFF_FFFF && states.allowsConnectableAdvertisingWhilePeripheral)
        #expect(!(try decodeReturn(HCILESupportedStatesReturn.self, "00 ffffffff3f000000").states.allowsConnectableAdvertisingWhilePeripheral))
        #expect(try decodeReturn(HCISuggestedDataLengthReturn.self, "00 1b00 4801").length == .minimum)
        #expect(try decodeReturn(HCIMaximumDataLengthReturn.self, "00 fb00 4808 fb00 4808")
                == HCIMaximumDataLengthReturn(tx: .maximum, rx: .maximum))
        let asymmetric = try decodeReturn(HCIMaximumDataLengthReturn.self, "00 fb00 4808 1b00 4801")
        #expect(asymmetric.tx == .maximum && asymmetric.rx == .minimum)
    }

    @Test func returnParametersInsideCommandComplete() throws {
        let event = try decodeEvent("04 0e 0c 01 0110 00 0c 0001 0c 0200 3412")
        guard case let .commandComplete(complete) = event else { Issue.record("not Command Complete: \(event)"); return }
        #expect(complete.opcode == HCIReadLocalVersionInformation.opcode)
        let version = try HCIReadLocalVersionInformation.ReturnParameters(decoding: complete.returnParameters)
        #expect(version.manufacturer == 0x0002 && version.lmpSubversion == 0x1234)
    }
}

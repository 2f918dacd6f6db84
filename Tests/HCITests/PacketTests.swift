import TestSupport
import Testing
import BLECore
@testable import HCI

/// H4 framing (Vol 4 Part A 2) and the ACL data packet header (Vol 4 Part E 5.4.2).
@Suite struct PacketTests {
    @Test func h4IndicatorIsChecked() throws {
        #expect(HCIPacket(h4Bytes: []) == nil)
        #expect(HCIPacket(h4Bytes: [0x00, 0x01]) == nil)
        #expect(HCIPacket(h4Bytes: [0x06]) == nil)
        let indicators: [(UInt8, HCIPacketType)] = [(1, .command), (2, .acl), (3, .sco), (4, .event), (5, .iso)]
        for (byte, type) in indicators {
            let packet = try #require(HCIPacket(h4Bytes: [byte, 0xAA]))
            #expect(packet.type == type)
            #expect(Array(packet.body) == [0xAA])
        }
        let built = HCIPacket(type: .event, body: [0x0E, 0x00])
        #expect(built.h4Bytes == [0x04, 0x0E, 0x00])
        #expect(built.description == "event 0e00")
    }

    @Test func aclFromControllerDecodes() throws {
        // ATT Exchange MTU Request (247) on handle 0x040, first automatically-flushable fragment (PB 0b10).
        let frame = hex("02 4020 0700 0300 0400 02f700")
        let packet = try #require(HCIPacket(h4Bytes: frame))
        #expect(packet.type == .acl)
        let acl = try HCIACLPacket(body: packet.body)
        #expect(acl.handle == 0x0040)
        #expect(acl.boundary == .firstFlushable)
        #expect(acl.boundary.startsPDU)
        #expect(acl.broadcast == 0)
        #expect(acl.data == [0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00])
        #expect(acl.packet.h4Bytes == frame)
    }

    @Test func aclFromHostEncodes() throws {
        let data: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x03, 0xF7, 0x00]
        #expect(HCIACLPacket(handle: 0x0040, boundary: .firstNonFlushable, data: data).packet.h4Bytes.hexString
                == "02" + "4000" + "0700" + "03000400" + "03f700")
        #expect(HCIACLPacket(handle: 0x0EFF, boundary: .continuing, data: [0xAB]).packet.h4Bytes.hexString == "02ff1e0100ab")
        #expect(HCIACLPacket.frame(handle: 0x0001, boundary: .firstNonFlushable, fragment: data[2...]).h4Bytes.hexString
                == "02" + "0100" + "0500" + "0400" + "03f700")
        #expect(HCIACLPacket(handle: 1, boundary: .complete, data: []).packet.h4Bytes.hexString == "0201300000")
        #expect(!ACLPacketBoundary.continuing.startsPDU)
    }

    @Test func aclHeaderFieldsRoundTrip() throws {
        for boundary in [ACLPacketBoundary.firstNonFlushable, .continuing, .firstFlushable, .complete] {
            for broadcast: UInt8 in 0...3 {
                let packet = HCIACLPacket(handle: 0x0ABC, boundary: boundary, broadcast: broadcast, data: [1, 2, 3])
                let decoded = try HCIACLPacket(body: packet.packet.body)
                #expect(decoded == packet, "PB \(boundary) BC \(broadcast)")
            }
        }
        // The Broadcast_Flag lives in bits 14-15 of the header.
        #expect(HCIACLPacket(handle: 0, boundary: .firstNonFlushable, broadcast: 1, data: []).packet.h4Bytes.hexString == "0200400000")
        // Out-of-range values are masked to their fields.
        let masked = HCIACLPacket(handle: 0xFFFF, boundary: .continuing, broadcast: 0xFF, data: [])
        #expect(masked.handle == 0x0FFF && masked.broadcast == 0x03)
    }

    @Test func aclLengthMustMatch() throws {
        let short = hex("4020 0500 0102"), long = hex("4020 0000 01")
        #expect(isUnexpectedLength(decodingError { () throws(HCIDecodingError) in try HCIACLPacket(body: short[...]) }, expected: 5, actual: 2))
        #expect(isUnexpectedLength(decodingError { () throws(HCIDecodingError) in try HCIACLPacket(body: long[...]) }, expected: 0, actual: 1))
        #expect(isTruncated(decodingError { () throws(HCIDecodingError) in try HCIACLPacket(body: [0x40, 0x20, 0x00][...]) }))
    }

    @Test func opcodesSplitIntoGroupAndCommand() {
        let opcode = HCIOpcode(ogf: 0x08, ocf: 0x000A)
        #expect(opcode.rawValue == 0x200A)
        #expect(opcode.ogf == 0x08 && opcode.ocf == 0x000A)
        #expect(HCIOpcode(rawValue: 0xFC01).ogf == 0x3F)  // vendor-specific group
        #expect(HCIOpcode(ogf: 0xFF, ocf: 0xFFFF).rawValue == 0xFFFF)
        #expect(HCIOpcode.reset.description == "Reset (0xc03)")
        #expect(HCIOpcode.leRemoteConnectionParameterRequestReply.description == "LE Remote Connection Parameter Request Reply (0x2020)")
        #expect(HCIOpcode(rawValue: 0xFC01).description == "opcode (0xfc01)")
    }

    @Test func opcodeValuesMatchTheSpec() {
        // (OGF << 10 | OCF) from the Vol 4 Part E 7.x command headers.
        let expected: [(HCIOpcode, UInt16)] = [
            (.disconnect, 0x0406), (.readRemoteVersionInformation, 0x041D),
            (.setEventMask, 0x0C01), (.reset, 0x0C03), (.setEventMaskPage2, 0x0C63), (.writeLEHostSupport, 0x0C6D),
            (.readLocalVersionInformation, 0x1001), (.readLocalSupportedCommands, 0x1002),
            (.readLocalSupportedFeatures, 0x1003), (.readBufferSize, 0x1005), (.readBDADDR, 0x1009),
            (.leSetEventMask, 0x2001), (.leReadBufferSize, 0x2002), (.leReadLocalSupportedFeatures, 0x2003),
            (.leSetRandomAddress, 0x2005), (.leSetAdvertisingParameters, 0x2006), (.leReadAdvertisingChannelTxPower, 0x2007),
            (.leSetAdvertisingData, 0x2008), (.leSetScanResponseData, 0x2009), (.leSetAdvertisingEnable, 0x200A),
            (.leSetScanParameters, 0x200B), (.leSetScanEnable, 0x200C), (.leCreateConnection, 0x200D),
            (.leCreateConnectionCancel, 0x200E), (.leConnectionUpdate, 0x2013), (.leEnableEncryption, 0x2019),
            (.leLongTermKeyRequestReply, 0x201A), (.leLongTermKeyRequestNegativeReply, 0x201B), (.leReadSupportedStates, 0x201C),
            (.leRemoteConnectionParameterRequestReply, 0x2020), (.leRemoteConnectionParameterRequestNegativeReply, 0x2021),
            (.leSetDataLength, 0x2022),
            (.leReadSuggestedDefaultDataLength, 0x2023), (.leWriteSuggestedDefaultDataLength, 0x2024),
            (.leReadMaximumDataLength, 0x202F), (.leReadBufferSizeV2, 0x2060),
        ]
        for (opcode, raw) in expected {
            #expect(opcode.rawValue == raw, "\(opcode)")
            #expect(HCIOpcode.names[opcode] != nil, "\(opcode) has a name")
        }
        #expect(HCIOpcode.names.count == expected.count)
    }

    @Test func statusCodesMatchTheSpec() {
        // Vol 1 Part F 1.3.
        let expected: [(HCIStatus, UInt8)] = [
            (.success, 0x00), (.unknownCommand, 0x01), (.unknownConnectionIdentifier, 0x02), (.hardwareFailure, 0x03),
            (.authenticationFailure, 0x05), (.pinOrKeyMissing, 0x06), (.memoryCapacityExceeded, 0x07), (.connectionTimeout, 0x08),
            (.connectionLimitExceeded, 0x09), (.connectionAlreadyExists, 0x0B), (.commandDisallowed, 0x0C),
            (.unsupportedFeature, 0x11), (.invalidParameters, 0x12), (.remoteUserTerminated, 0x13), (.remoteLowResources, 0x14),
            (.remotePowerOff, 0x15), (.localHostTerminated, 0x16), (.unsupportedRemoteFeature, 0x1A), (.unspecifiedError, 0x1F),
            (.lmpResponseTimeout, 0x22), (.instantPassed, 0x28), (.controllerBusy, 0x3A), (.unacceptableConnectionParameters, 0x3B),
            (.advertisingTimeout, 0x3C), (.terminatedMICFailure, 0x3D), (.failedToEstablish, 0x3E), (.unknownAdvertisingIdentifier, 0x42),
        ]
        for (status, raw) in expected { #expect(status.rawValue == raw, "\(status)") }
        #expect(HCIStatus.success.isSuccess && !HCIStatus.unknownCommand.isSuccess)
        #expect(HCIStatus.remoteUserTerminated.description == "Remote User Terminated Connection (0x13)")
        #expect(HCIStatus.success.description == "Success (0x00)")
        // Codes this host has no name for are kept, not rejected.
        #expect(HCIStatus(rawValue: 0x45).description == "Error (0x45)")
    }

    @Test func errorsDescribeWhatFailed() {
        let truncated = HCIDecodingError.truncated("LE Meta", .truncated(needed: 1, available: 0, offset: 0))
        #expect(truncated.description.hasPrefix("LE Meta: truncated data"))
        #expect(HCIDecodingError.unexpectedLength("event 0xe", expected: 4, actual: 3).description == "event 0xe: expected 4 bytes, got 3")
        #expect(HCIDecodingError.invalidValue("X", field: "enable", value: 2).description == "X: invalid enable 0x2")
        #expect(HCIDecodingError.wrongOpcode(expected: .reset, actual: .readBDADDR).description
                == "expected Reset (0xc03), got Read BD_ADDR (0x1009)")
    }
}

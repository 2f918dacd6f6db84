import TestSupport
import Testing
import BLECore
@testable import HCI

/// Decoders of controller bytes are total: any cut or corrupted input throws `HCIDecodingError`;
/// nothing traps. A trap here would take the whole test process down, so surviving is part of the check.
@Suite struct TotalityTests {
    /// One valid H4 frame per event shape the host decodes, plus how many parameter bytes are
    /// enough for its decoder (the fixed part; Command Complete's return parameters stay raw).
    static let events: [(name: String, frame: String, minimumParameters: Int?)] = [
        ("Command Complete", "04 0e 04 01 030c 00", 3),
        ("Command Status", "04 0f 04 00 01 0d20", nil),
        ("Disconnection Complete", "04 05 04 00 4000 13", nil),
        ("Encryption Change v1", "04 08 04 00 4000 01", nil),
        ("Encryption Change v2", "04 59 05 00 4000 01 10", nil),
        ("Encryption Key Refresh Complete", "04 30 03 00 4000", nil),
        ("Read Remote Version Complete", "04 0c 08 00 4000 0c 0f00 3412", nil),
        ("Number Of Completed Packets", "04 13 0d 03 4000 0100 4100 0200 4200 0300", nil),
        ("Hardware Error", "04 10 01 03", nil),
        ("Data Buffer Overflow", "04 1a 01 01", nil),
        ("LE Connection Complete", "04 3e 13 01 00 4000 01 01 554433 2211c0 2800 0000 f401 00", nil),
        ("LE Enhanced Connection Complete", "04 3e 1f 0a 00 4000 00 02 665544 332211 0c0b0a 090807 f6f5f4 f3f2f1 1800 0400 c800 05", nil),
        ("LE Enhanced Connection Complete v2", "04 3e 22 29 00 4000 01 00 665544 332211 000000 000000 000000 000000 0600 0000 4800 00 02 ffff", nil),
        ("LE Advertising Report", "04 3e 19 02 02 00 01 554433 2211c0 03 020106 c5 04 00 ab8967 452301 00 7f", nil),
        ("LE Connection Update Complete", "04 3e 0a 03 00 4000 0600 0000 f401", nil),
        ("LE Long Term Key Request", "04 3e 0d 05 4000 0807060504030201 3412", nil),
        ("LE Remote Connection Parameter Request", "04 3e 0b 06 4000 0600 0c00 0000 f401", nil),
        ("LE Data Length Change", "04 3e 0b 07 4000 fb00 4808 1b00 4801", nil),
        ("unknown LE subevent", "04 3e 04 0d 010203", 1),
        ("unknown event", "04 ff 03 010203", 0),
    ]

    @Test(arguments: events.map(\.name))
    func everyPrefixOfAnEventThrows(name: String) throws {
        let entry = try #require(Self.events.first { $0.name == name })
        let body = Array(hex(entry.frame).dropFirst())
        #expect(try HCIEvent(body: body[...]).code == body[0])
        let declared = Int(body[1])
        for length in 0..<body.count {
            let error = decodingError { () throws(HCIDecodingError) in try HCIEvent(body: body.prefix(length)) }
            if length < 2 {
                #expect(isTruncated(error), "\(name): header cut to \(length)")
            } else {
                #expect(isUnexpectedLength(error, expected: declared, actual: length - 2), "\(name): cut to \(length)")
            }
        }
    }

    @Test(arguments: events.map(\.name))
    func everyShortenedParameterListThrows(name: String) throws {
        // The length field is corrected, so the event decoder itself has to notice the missing bytes.
        let entry = try #require(Self.events.first { $0.name == name })
        let body = Array(hex(entry.frame).dropFirst())
        let parameters = Array(body.dropFirst(2))
        let enough = entry.minimumParameters ?? parameters.count
        for length in 0..<parameters.count {
            let cut = [body[0], UInt8(length)] + parameters.prefix(length)
            let error = decodingError { () throws(HCIDecodingError) in try HCIEvent(body: cut[...]) }
            if length < enough {
                #expect(isTruncated(error), "\(name): parameters cut to \(length)")
            } else {
                #expect(error == nil, "\(name): \(length) parameter bytes are a valid event")
            }
        }
    }

    @Test(arguments: events.map(\.name))
    func eventLengthFieldMismatchThrows(name: String) throws {
        let entry = try #require(Self.events.first { $0.name == name })
        let body = Array(hex(entry.frame).dropFirst())
        let declared = Int(body[1])
        var overstated = body
        overstated[1] += 1
        #expect(isUnexpectedLength(decodingError { () throws(HCIDecodingError) in try HCIEvent(body: overstated[...]) },
                                   expected: declared + 1, actual: declared))
        let trailing = body + [0x00]
        #expect(isUnexpectedLength(decodingError { () throws(HCIDecodingError) in try HCIEvent(body: trailing[...]) },
                                   expected: declared, actual: declared + 1))
    }

    @Test func everyPrefixOfAnACLPacketThrows() throws {
        let body = Array(hex("02 4020 0700 0300 0400 02f700").dropFirst())
        for length in 0..<body.count {
            let error = decodingError { () throws(HCIDecodingError) in try HCIACLPacket(body: body.prefix(length)) }
            if length < 4 {
                #expect(isTruncated(error), "cut to \(length)")
            } else {
                #expect(isUnexpectedLength(error, expected: 7, actual: length - 4), "cut to \(length)")
            }
        }
    }

    @Test func everyPrefixOfACommandPacketThrows() throws {
        let commands = try Self.sampleCommands()
        for command in commands {
            let body = Array(command.packet.body)
            for length in 0..<body.count {
                let error = decodingError { () throws(HCIDecodingError) in try HCICommandPacket(body: body.prefix(length)) }
                if length < 3 {
                    #expect(isTruncated(error))
                } else {
                    #expect(isUnexpectedLength(error, expected: Int(body[2]), actual: length - 3), "\(type(of: command)) cut to \(length)")
                }
            }
        }
    }

    @Test func everyShortenedCommandParameterListThrows() throws {
        for command in try Self.sampleCommands() {
            try Self.expectShortenedParametersThrow(command)
        }
    }

    static func expectShortenedParametersThrow<C: HCICommand>(_ command: C) throws {
        let parameters = command.encoded
        for length in 0..<parameters.count {
            let packet = HCICommandPacket(opcode: C.opcode, parameters: Array(parameters.prefix(length)))
            #expect(isTruncated(decodingError { () throws(HCIDecodingError) in try packet.decode(C.self) }),
                    "\(C.self) parameters cut to \(length)")
        }
    }

    /// One instance of every command type, with non-trivial field values.
    static func sampleCommands() throws -> [any HCICommand] {
        let peer = DeviceAddress(BluetoothAddress(littleEndian: [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0]), type: .randomDevice)
        let ltk: [UInt8] = Array(0x10...0x1F)
        let payload = try #require(LELegacyAdvertisingPayload([0x02, 0x01, 0x06]))
        return [
            HCIDisconnect(handle: 0x40), HCIReadRemoteVersionInformation(handle: 0x40),
            HCIReset(), HCISetEventMask.leHostDefault, HCISetEventMaskPage2(mask: HCISetEventMaskPage2.encryptionChangeV2),
            HCIWriteLEHostSupport(), HCILEReadSupportedStates(),
            HCIReadLocalVersionInformation(), HCIReadLocalSupportedCommands(), HCIReadLocalSupportedFeatures(),
            HCIReadBufferSize(), HCIReadBDADDR(),
            HCILESetEventMask.hostDefault, HCILEReadBufferSize(), HCILEReadBufferSizeV2(), HCILEReadLocalSupportedFeatures(),
            HCILESetRandomAddress(address: peer.address), HCILESetAdvertisingParameters(peerAddress: peer.address),
            HCILEReadAdvertisingChannelTxPower(), HCILESetAdvertisingData(payload: payload), HCILESetScanResponseData(payload: payload),
            HCILESetAdvertisingEnable(enable: true), HCILESetScanParameters(), HCILESetScanEnable(enable: true, filterDuplicates: true),
            HCILECreateConnection(peer: peer), HCILECreateConnectionCancel(),
            HCILEConnectionUpdate(handle: 0x40, parameters: LEConnectionParameters()),
            HCILEEnableEncryption(handle: 0x40, random: 0x1122_3344_5566_7788, ediv: 0xBEEF, longTermKey: ltk),
            HCILELongTermKeyRequestReply(handle: 0x40, longTermKey: ltk), HCILELongTermKeyRequestNegativeReply(handle: 0x40),
            HCILERemoteConnectionParameterRequestReply(handle: 0x40, parameters: LEConnectionParameters(), minCELength: 1, maxCELength: 2),
            HCILERemoteConnectionParameterRequestNegativeReply(handle: 0x40),
            HCILESetDataLength(handle: 0x40, txOctets: 251, txTime: 2120), HCILEReadSuggestedDefaultDataLength(),
            HCILEWriteSuggestedDefaultDataLength(length: .maximum), HCILEReadMaximumDataLength(),
        ]
    }

    @Test func sampleCoversEveryOpcode() throws {
        let opcodes = Set(try Self.sampleCommands().map { type(of: $0).opcode })
        #expect(opcodes == Set(HCIOpcode.names.keys))
    }
}

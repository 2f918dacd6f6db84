import Testing
@testable import HCI

/// Bit positions the host relies on to talk only about what the controller supports.
@Suite struct ConstantsTests {
    /// (octet, bit) from the Supported_Commands table, Core spec v5.4 Vol 4 Part E 6.27, as extracted from
    /// the spec text in steven-buytaert/snippets `bluetooth/hci-spec2src-5.4.h`; octet 41 bit 5 agrees
    /// with Zephyr's `BT_CMD_TEST(..., 41, 5)` for LE Read Buffer Size v2; octet 24 bit 6 (Write LE
    /// Host Support) and octet 28 bit 3 (LE Read Supported States) with Bumble's
    /// `HCI_SUPPORTED_COMMANDS_MASKS`.
    static let specPositions: [(HCIOpcode, Int, Int)] = [
        (.disconnect, 0, 5), (.readRemoteVersionInformation, 2, 7), (.setEventMask, 5, 6), (.reset, 5, 7),
        (.readLocalVersionInformation, 14, 3), (.readLocalSupportedFeatures, 14, 5), (.readBufferSize, 14, 7),
        (.readBDADDR, 15, 1), (.setEventMaskPage2, 22, 2), (.writeLEHostSupport, 24, 6),
        (.leSetEventMask, 25, 0), (.leReadBufferSize, 25, 1), (.leReadLocalSupportedFeatures, 25, 2),
        (.leSetRandomAddress, 25, 4), (.leSetAdvertisingParameters, 25, 5), (.leReadAdvertisingChannelTxPower, 25, 6),
        (.leSetAdvertisingData, 25, 7), (.leSetScanResponseData, 26, 0), (.leSetAdvertisingEnable, 26, 1),
        (.leSetScanParameters, 26, 2), (.leSetScanEnable, 26, 3), (.leCreateConnection, 26, 4),
        (.leCreateConnectionCancel, 26, 5), (.leConnectionUpdate, 27, 2), (.leEnableEncryption, 28, 0),
        (.leLongTermKeyRequestReply, 28, 1), (.leLongTermKeyRequestNegativeReply, 28, 2), (.leReadSupportedStates, 28, 3),
        (.leRemoteConnectionParameterRequestReply, 33, 4), (.leRemoteConnectionParameterRequestNegativeReply, 33, 5),
        (.leSetDataLength, 33, 6),
        (.leReadSuggestedDefaultDataLength, 33, 7), (.leWriteSuggestedDefaultDataLength, 34, 0),
        (.leReadMaximumDataLength, 35, 3), (.leReadBufferSizeV2, 41, 5),
    ]

    @Test func supportedCommandPositionsMatchTheSpecTable() {
        #expect(HCISupportedCommands.positions.count == Self.specPositions.count)
        for (opcode, octet, bit) in Self.specPositions {
            let position = HCISupportedCommands.positions[opcode]
            #expect(position?.octet == octet && position?.bit == bit, "\(opcode)")
        }
        // Read Local Supported Commands has no bit of its own: it is how the bits are read.
        #expect(HCISupportedCommands.positions[.readLocalSupportedCommands] == nil)
    }

    @Test func eachSupportedBitAnswersForItsCommandOnly() {
        for (opcode, octet, bit) in Self.specPositions {
            var octets = [UInt8](repeating: 0, count: 64)
            octets[octet] = 1 << bit
            let commands = HCISupportedCommands(octets: octets)
            for (other, _, _) in Self.specPositions {
                #expect(commands.supports(other) == (other == opcode), "bit for \(opcode) answering \(other)")
            }
            #expect(HCISupportedCommands(supporting: [opcode]) == commands)
        }
    }

    @Test func supportedCommandsBitField() {
        #expect(HCISupportedCommands.none.octets == [UInt8](repeating: 0, count: 64))
        #expect(!HCISupportedCommands.none.supports(.reset))
        // Short input is zero-padded, long input cut, to the 64 octets of the field.
        #expect(HCISupportedCommands(octets: [0xFF]).octets.count == 64)
        #expect(HCISupportedCommands(octets: [UInt8](repeating: 0xFF, count: 80)).octets.count == 64)
        let all = HCISupportedCommands(octets: [UInt8](repeating: 0xFF, count: 64))
        for (opcode, _, _) in Self.specPositions { #expect(all.supports(opcode)) }
        // Commands without a known position are never claimed.
        #expect(!all.supports(.readLocalSupportedCommands))
        #expect(!all.supports(HCIOpcode(rawValue: 0xFC01)))
        var commands = HCISupportedCommands.none
        commands.insert(.leSetAdvertisingEnable)
        commands.insert(HCIOpcode(rawValue: 0xFC01))
        #expect(commands.octets[26] == 0x02)
        #expect(commands.octets.enumerated().allSatisfy { $0.offset == 26 || $0.element == 0 })
    }

    @Test func setEventMaskBits() {
        // Vol 4 Part E 7.3.1: bit n enables event code n + 1 for every event here.
        #expect(HCISetEventMask.leMeta == 1 << 61)
        #expect(HCISetEventMask.disconnectionComplete == 1 << 4)
        #expect(HCISetEventMask.encryptionChange == 1 << 7)
        #expect(HCISetEventMask.readRemoteVersionInformationComplete == 1 << 11)
        #expect(HCISetEventMask.hardwareError == 1 << 15)
        #expect(HCISetEventMask.dataBufferOverflow == 1 << 25)
        #expect(HCISetEventMask.encryptionKeyRefreshComplete == 1 << 47)
        let pairs: [(UInt64, UInt8)] = [
            (HCISetEventMask.leMeta, HCIEventCode.leMeta),
            (HCISetEventMask.disconnectionComplete, HCIEventCode.disconnectionComplete),
            (HCISetEventMask.encryptionChange, HCIEventCode.encryptionChange),
            (HCISetEventMask.readRemoteVersionInformationComplete, HCIEventCode.readRemoteVersionInformationComplete),
            (HCISetEventMask.hardwareError, HCIEventCode.hardwareError),
            (HCISetEventMask.dataBufferOverflow, HCIEventCode.dataBufferOverflow),
            (HCISetEventMask.encryptionKeyRefreshComplete, HCIEventCode.encryptionKeyRefreshComplete),
        ]
        for (bit, code) in pairs { #expect(bit == 1 << (UInt64(code) - 1), "event 0x\(String(code, radix: 16))") }
        // BlueZ sets LE Meta as events[7] |= 0x20: the same bit.
        #expect(HCISetEventMask.leMeta.littleEndianBytes[7] == 0x20)
        for (bit, _) in pairs { #expect(HCISetEventMask.leHostDefault.mask & bit != 0) }
        // Page 2 (7.3.69): bit n enables event code 0x40 + n; Encryption Change v2 is 0x59.
        #expect(HCISetEventMaskPage2.encryptionChangeV2 == 1 << 25)
        #expect(HCISetEventMaskPage2.encryptionChangeV2 == 1 << (UInt64(HCIEventCode.encryptionChangeV2) - 0x40))
    }

    @Test func leSetEventMaskBits() {
        // Vol 4 Part E 7.8.1: bit n enables LE subevent n + 1.
        #expect(HCILESetEventMask.enhancedConnectionComplete == 1 << 9)
        let pairs: [(UInt64, UInt8)] = [
            (HCILESetEventMask.connectionComplete, LESubeventCode.connectionComplete),
            (HCILESetEventMask.advertisingReport, LESubeventCode.advertisingReport),
            (HCILESetEventMask.connectionUpdateComplete, LESubeventCode.connectionUpdateComplete),
            (HCILESetEventMask.readRemoteFeaturesComplete, LESubeventCode.readRemoteFeaturesComplete),
            (HCILESetEventMask.longTermKeyRequest, LESubeventCode.longTermKeyRequest),
            (HCILESetEventMask.remoteConnectionParameterRequest, LESubeventCode.remoteConnectionParameterRequest),
            (HCILESetEventMask.dataLengthChange, LESubeventCode.dataLengthChange),
            (HCILESetEventMask.enhancedConnectionComplete, LESubeventCode.enhancedConnectionComplete),
        ]
        for (bit, subevent) in pairs {
            #expect(bit == 1 << (UInt64(subevent) - 1), "subevent 0x\(String(subevent, radix: 16))")
            #expect(HCILESetEventMask.hostDefault.mask & bit != 0)
        }
        // BlueZ enables Enhanced Connection Complete with events[1] |= 0x02.
        #expect(HCILESetEventMask.enhancedConnectionComplete.littleEndianBytes[1] == 0x02)
    }

    @Test func eventAndSubeventCodes() {
        // Vol 4 Part E 7.7 and 7.7.65.
        #expect(HCIEventCode.disconnectionComplete == 0x05)
        #expect(HCIEventCode.encryptionChange == 0x08)
        #expect(HCIEventCode.readRemoteVersionInformationComplete == 0x0C)
        #expect(HCIEventCode.commandComplete == 0x0E)
        #expect(HCIEventCode.commandStatus == 0x0F)
        #expect(HCIEventCode.hardwareError == 0x10)
        #expect(HCIEventCode.numberOfCompletedPackets == 0x13)
        #expect(HCIEventCode.dataBufferOverflow == 0x1A)
        #expect(HCIEventCode.encryptionKeyRefreshComplete == 0x30)
        #expect(HCIEventCode.leMeta == 0x3E)
        #expect(HCIEventCode.encryptionChangeV2 == 0x59)
        #expect(LESubeventCode.connectionComplete == 0x01)
        #expect(LESubeventCode.advertisingReport == 0x02)
        #expect(LESubeventCode.connectionUpdateComplete == 0x03)
        #expect(LESubeventCode.readRemoteFeaturesComplete == 0x04)
        #expect(LESubeventCode.longTermKeyRequest == 0x05)
        #expect(LESubeventCode.remoteConnectionParameterRequest == 0x06)
        #expect(LESubeventCode.dataLengthChange == 0x07)
        #expect(LESubeventCode.enhancedConnectionComplete == 0x0A)
        #expect(LESubeventCode.enhancedConnectionCompleteV2 == 0x29)
    }

    @Test func featureAndDataLengthConstants() {
        #expect(HCIFeaturesReturn.lmpLESupported == 1 << 38)
        #expect(HCIFeaturesReturn.lmpBREDRNotSupported == 1 << 37)
        #expect(HCILEReadLocalSupportedFeatures.leEncryption == 1 << 0)
        #expect(HCILEReadLocalSupportedFeatures.dataPacketLengthExtension == 1 << 5)
        // Vol 6 Part B 4.5.10: 27 octets / 328 µs minimum, 251 octets / 2120 µs on LE 1M.
        #expect(LEDataLength.minimum == LEDataLength(octets: 27, time: 328))
        #expect(LEDataLength.maximum == LEDataLength(octets: 251, time: 2120))
    }
}

private extension UInt64 {
    var littleEndianBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) } }
}

import Testing
import BLECore
@testable import HCI

/// Every command's H4 frame: indicator 0x01, opcode little-endian, parameter length, parameters
/// (Core spec Vol 4 Part E 5.4.1 and the 7.x parameter tables). Each vector also round-trips.
@Suite struct CommandEncodingTests {
    let ltk: [UInt8] = Array(0x00...0x0F)

    @Test func linkControlCommands() throws {
        try expectCommand(HCIDisconnect(handle: 0x0040, reason: .remoteUserTerminated), "01 0604 03 4000 13")
        try expectCommand(HCIDisconnect(handle: 0x0EFF, reason: .unacceptableConnectionParameters), "01 0604 03 ff0e 3b")
        try expectCommand(HCIReadRemoteVersionInformation(handle: 0x0040), "01 1d04 02 4000")
    }

    @Test func controllerAndBasebandCommands() throws {
        // The frame every btmon trace starts with.
        try expectCommand(HCIReset(), "01 030c 00")
        // Bits 4, 7, 11, 15, 25, 47, 61 of a little-endian 64-bit mask.
        try expectCommand(HCISetEventMask.leHostDefault, "01 010c 08 9088000200800020")
        // BlueZ's classic mask as btmon prints it: ff ff fb ff 07 f8 bf 3d.
        try expectCommand(HCISetEventMask(mask: 0x3DBF_F807_FFFB_FFFF), "01 010c 08 fffffbff07f8bf3d")
        try expectCommand(HCISetEventMaskPage2(mask: HCISetEventMaskPage2.encryptionChangeV2), "01 630c 08 0000000200000000")
    }

    @Test func informationalCommands() throws {
        try expectCommand(HCIReadLocalVersionInformation(), "01 0110 00")
        try expectCommand(HCIReadLocalSupportedCommands(), "01 0210 00")
        try expectCommand(HCIReadLocalSupportedFeatures(), "01 0310 00")
        try expectCommand(HCIReadBufferSize(), "01 0510 00")
        try expectCommand(HCIReadBDADDR(), "01 0910 00")
    }

    @Test func theLEEventMaskFollowsTheFeaturesAndStepsDownAsNimBLEDoes() {
        typealias Features = HCILEReadLocalSupportedFeatures
        // Core 5.x with privacy: everything the host handles.
        let full = HCILESetEventMask.forController(leFeatures: 0x7F)
        #expect(full == .hostDefault)
        #expect(full.fallbackLadder.map(\.mask) == [0x27F, 0x3F, 0x1F])
        // A 4.1 chip (encryption, parameter requests): 0x3F, then 0x1F.
        let core41 = HCILESetEventMask.forController(leFeatures: Features.leEncryption | Features.connectionParametersRequest)
        #expect(core41.fallbackLadder.map(\.mask) == [0x3F, 0x1F])
        // A 4.0 chip: only the last rung.
        #expect(HCILESetEventMask.forController(leFeatures: Features.leEncryption).fallbackLadder.map(\.mask) == [0x1F])
        // No encryption feature: no LTK Request bit at all.
        #expect(HCILESetEventMask.forController(leFeatures: 0).mask == 0x0F)
    }

    @Test func leControllerSetupCommands() throws {
        // Bits 0-6 and 9 (Enhanced Connection Complete).
        try expectCommand(HCILESetEventMask.hostDefault, "01 0120 08 7f02000000000000")
        try expectCommand(HCIWriteLEHostSupport(), "01 6d0c 02 0100")
        try expectCommand(HCILEReadSupportedStates(), "01 1c20 00")
        try expectCommand(HCILESetEventMask(mask: 0x1F), "01 0120 08 1f00000000000000")
        try expectCommand(HCILEReadBufferSize(), "01 0220 00")
        try expectCommand(HCILEReadBufferSizeV2(), "01 6020 00")
        try expectCommand(HCILEReadLocalSupportedFeatures(), "01 0320 00")
        // Addresses go over HCI least significant byte first.
        try expectCommand(HCILESetRandomAddress(address: try address("C0:11:22:33:44:55")), "01 0520 06 554433 2211c0")
    }

    @Test func leAdvertisingCommands() throws {
        try expectCommand(HCILESetAdvertisingParameters(), "01 0620 0f a000 a000 00 00 00 000000000000 07 00")
        let nonConnectable = HCILESetAdvertisingParameters(
            intervalMin: 0x0800, intervalMax: 0x0800, type: .nonConnectableUndirected, ownAddressType: .randomDevice,
            peerAddressType: .randomDevice, peerAddress: try address("11:22:33:44:55:66"), channelMap: 0x01, filterPolicy: 0x03)
        try expectCommand(nonConnectable, "01 0620 0f 0008 0008 03 01 01 665544332211 01 03")
        try expectCommand(HCILEReadAdvertisingChannelTxPower(), "01 0720 00")

        // Flags (LE General Discoverable, BR/EDR not supported) + complete 16-bit UUID list (Heart Rate),
        // zero-padded to the fixed 31 octets.
        let adData: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18]
        let advertising = HCILESetAdvertisingData(payload: try #require(LELegacyAdvertisingPayload(adData)))
        try expectCommand(advertising, "01 0820 20 07 0201060303 0d18" + String(repeating: "00", count: 24))
        let empty = HCILESetScanResponseData(payload: try #require(LELegacyAdvertisingPayload([])))
        try expectCommand(empty, "01 0920 20 00" + String(repeating: "00", count: 31))
        let full = [UInt8](repeating: 0xAB, count: 31)
        try expectCommand(HCILESetScanResponseData(payload: try #require(LELegacyAdvertisingPayload(full))),
                          "01 0920 20 1f" + String(repeating: "ab", count: 31))
        #expect(LELegacyAdvertisingPayload([UInt8](repeating: 0, count: 32)) == nil)

        try expectCommand(HCILESetAdvertisingEnable(enable: true), "01 0a20 01 01")
        try expectCommand(HCILESetAdvertisingEnable(enable: false), "01 0a20 01 00")
    }

    @Test func leScanCommands() throws {
        try expectCommand(HCILESetScanParameters(), "01 0b20 07 01 1000 1000 00 00")
        try expectCommand(HCILESetScanParameters(active: false, interval: 0x0060, window: 0x0030,
                                                 ownAddressType: .randomDevice, filterPolicy: 0x01),
                          "01 0b20 07 00 6000 3000 01 01")
        try expectCommand(HCILESetScanEnable(enable: true, filterDuplicates: true), "01 0c20 02 01 01")
        try expectCommand(HCILESetScanEnable(enable: false), "01 0c20 02 00 00")
    }

    @Test func leConnectionCommands() throws {
        let peer = DeviceAddress(try address("C0:11:22:33:44:55"), type: .randomDevice)
        try expectCommand(HCILECreateConnection(peer: peer, scanInterval: 0x0060, scanWindow: 0x0060),
                          "01 0d20 19 6000 6000 00 01 554433 2211c0 00 1800 2800 0000 f401 0000 0000")
        let viaList = HCILECreateConnection(
            peer: DeviceAddress(.zero, type: .publicDevice), ownAddressType: .randomDevice,
            parameters: LEConnectionParameters(intervalMin: 6, intervalMax: 0x0C80, latency: 499, supervisionTimeout: 0x0C80),
            scanInterval: 0x4000, scanWindow: 0x0004, useFilterAcceptList: true, minCELength: 2, maxCELength: 0xFFFF)
        try expectCommand(viaList, "01 0d20 19 0040 0400 01 00 000000000000 01 0600 800c f301 800c 0200 ffff")
        try expectCommand(HCILECreateConnectionCancel(), "01 0e20 00")
        try expectCommand(HCILEConnectionUpdate(handle: 0x0040, parameters: LEConnectionParameters(
            intervalMin: 6, intervalMax: 6, latency: 0, supervisionTimeout: 0x01F4)),
                          "01 1320 0e 4000 0600 0600 0000 f401 0000 0000")
        try expectCommand(HCILEConnectionUpdate(handle: 0x0001, parameters: LEConnectionParameters(), minCELength: 1, maxCELength: 2),
                          "01 1320 0e 0100 1800 2800 0000 f401 0100 0200")
    }

    @Test func leConnectionParameterRequestReplies() throws {
        // 7.8.31: handle, Interval_Min, Interval_Max, Max_Latency, Timeout, Min_CE_Length, Max_CE_Length.
        try expectCommand(HCILERemoteConnectionParameterRequestReply(
            handle: 0x0040, parameters: LEConnectionParameters(intervalMin: 6, intervalMax: 12, latency: 0, supervisionTimeout: 0x01F4)),
                          "01 2020 0e 4000 0600 0c00 0000 f401 0000 0000")
        // 7.8.32: handle, Reason.
        try expectCommand(HCILERemoteConnectionParameterRequestNegativeReply(handle: 0x0040), "01 2120 03 4000 3b")
        try expectCommand(HCILERemoteConnectionParameterRequestNegativeReply(handle: 0x0001, reason: .unsupportedRemoteFeature),
                          "01 2120 03 0100 1a")
    }

    @Test func leEncryptionCommands() throws {
        try expectCommand(HCILEEnableEncryption(handle: 0x0040, random: 0x0102_0304_0506_0708, ediv: 0x1234, longTermKey: ltk),
                          "01 1920 1c 4000 0807060504030201 3412 000102030405060708090a0b0c0d0e0f")
        try expectCommand(HCILELongTermKeyRequestReply(handle: 0x0040, longTermKey: ltk),
                          "01 1a20 12 4000 000102030405060708090a0b0c0d0e0f")
        try expectCommand(HCILELongTermKeyRequestNegativeReply(handle: 0x0040), "01 1b20 02 4000")
        // A short key is zero-padded on the wire rather than producing a short, malformed command.
        #expect(HCILELongTermKeyRequestReply(handle: 1, longTermKey: [0xAA]).packet.h4Bytes.count == 4 + 18)
    }

    @Test func leDataLengthCommands() throws {
        try expectCommand(HCILESetDataLength(handle: 0x0040, txOctets: 251, txTime: 2120), "01 2220 06 4000 fb00 4808")
        try expectCommand(HCILEReadSuggestedDefaultDataLength(), "01 2320 00")
        try expectCommand(HCILEWriteSuggestedDefaultDataLength(length: .maximum), "01 2420 04 fb00 4808")
        try expectCommand(HCILEWriteSuggestedDefaultDataLength(length: .minimum), "01 2420 04 1b00 4801")
        try expectCommand(HCILEReadMaximumDataLength(), "01 2f20 00")
    }

    @Test func commandsThatCompleteWithCommandStatus() {
        // These run long; the controller answers Command Status and reports the outcome in a later event.
        #expect(HCIDisconnect.completion == .commandStatus)
        #expect(HCIReadRemoteVersionInformation.completion == .commandStatus)
        #expect(HCILECreateConnection.completion == .commandStatus)
        #expect(HCILEConnectionUpdate.completion == .commandStatus)
        #expect(HCILEEnableEncryption.completion == .commandStatus)
        #expect(HCIReset.completion == .commandComplete)
        #expect(HCILESetAdvertisingEnable.completion == .commandComplete)
        #expect(HCILELongTermKeyRequestReply.completion == .commandComplete)
        #expect(HCILESetDataLength.completion == .commandComplete)
        #expect(HCILERemoteConnectionParameterRequestReply.completion == .commandComplete)
    }

    @Test func returnParameterShapes() {
        #expect(HCIReset.ReturnParameters.self == HCIStatusReturn.self)
        #expect(HCILESetAdvertisingEnable.ReturnParameters.self == HCIStatusReturn.self)
        #expect(HCIReadLocalVersionInformation.ReturnParameters.self == HCILocalVersionInformation.self)
        #expect(HCIReadLocalSupportedCommands.ReturnParameters.self == HCISupportedCommandsReturn.self)
        #expect(HCIReadLocalSupportedFeatures.ReturnParameters.self == HCIFeaturesReturn.self)
        #expect(HCILEReadLocalSupportedFeatures.ReturnParameters.self == HCIFeaturesReturn.self)
        #expect(HCIReadBufferSize.ReturnParameters.self == HCIBufferSizeReturn.self)
        #expect(HCIReadBDADDR.ReturnParameters.self == HCIBDADDRReturn.self)
        #expect(HCILEReadBufferSize.ReturnParameters.self == HCILEBufferSizeReturn.self)
        #expect(HCILEReadBufferSizeV2.ReturnParameters.self == HCILEBufferSizeV2Return.self)
        #expect(HCILEReadAdvertisingChannelTxPower.ReturnParameters.self == HCITxPowerReturn.self)
        #expect(HCILELongTermKeyRequestReply.ReturnParameters.self == HCIHandleReturn.self)
        #expect(HCILELongTermKeyRequestNegativeReply.ReturnParameters.self == HCIHandleReturn.self)
        #expect(HCILESetDataLength.ReturnParameters.self == HCIHandleReturn.self)
        #expect(HCILERemoteConnectionParameterRequestReply.ReturnParameters.self == HCIHandleReturn.self)
        #expect(HCILERemoteConnectionParameterRequestNegativeReply.ReturnParameters.self == HCIHandleReturn.self)
        #expect(HCILEReadSuggestedDefaultDataLength.ReturnParameters.self == HCISuggestedDataLengthReturn.self)
        #expect(HCILEReadMaximumDataLength.ReturnParameters.self == HCIMaximumDataLengthReturn.self)
    }
}

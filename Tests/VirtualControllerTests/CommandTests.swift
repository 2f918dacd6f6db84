import BLECore
import HCI
import Testing
@testable import VirtualController

@Suite struct CommandTests {
    let radio = VirtualRadio()

    /// Every command the HCI module defines, with plausible parameters.
    static let allCommands: [(HCIOpcode, HCIPacket)] = [
        (HCIDisconnect.opcode, HCIDisconnect(handle: 0x0001).packet),
        (HCIReadRemoteVersionInformation.opcode, HCIReadRemoteVersionInformation(handle: 0x0001).packet),
        (HCISetEventMask.opcode, HCISetEventMask.leHostDefault.packet),
        (HCIReset.opcode, HCIReset().packet),
        (HCISetEventMaskPage2.opcode, HCISetEventMaskPage2(mask: 0).packet),
        (HCIWriteLEHostSupport.opcode, HCIWriteLEHostSupport().packet),
        (HCILEReadSupportedStates.opcode, HCILEReadSupportedStates().packet),
        (HCIReadLocalVersionInformation.opcode, HCIReadLocalVersionInformation().packet),
        (HCIReadLocalSupportedCommands.opcode, HCIReadLocalSupportedCommands().packet),
        (HCIReadLocalSupportedFeatures.opcode, HCIReadLocalSupportedFeatures().packet),
        (HCIReadBufferSize.opcode, HCIReadBufferSize().packet),
        (HCIReadBDADDR.opcode, HCIReadBDADDR().packet),
        (HCILESetEventMask.opcode, HCILESetEventMask.hostDefault.packet),
        (HCILEReadBufferSize.opcode, HCILEReadBufferSize().packet),
        (HCILEReadLocalSupportedFeatures.opcode, HCILEReadLocalSupportedFeatures().packet),
        (HCILESetRandomAddress.opcode, HCILESetRandomAddress(address: BluetoothAddress("C1:22:33:44:55:66")!).packet),
        (HCILESetAdvertisingParameters.opcode, HCILESetAdvertisingParameters().packet),
        (HCILEReadAdvertisingChannelTxPower.opcode, HCILEReadAdvertisingChannelTxPower().packet),
        (HCILESetAdvertisingData.opcode, HCILESetAdvertisingData(payload: LELegacyAdvertisingPayload([2, 1, 6])!).packet),
        (HCILESetScanResponseData.opcode, HCILESetScanResponseData(payload: LELegacyAdvertisingPayload([])!).packet),
        (HCILESetAdvertisingEnable.opcode, HCILESetAdvertisingEnable(enable: false).packet),
        (HCILESetScanParameters.opcode, HCILESetScanParameters().packet),
        (HCILESetScanEnable.opcode, HCILESetScanEnable(enable: false).packet),
        (HCILECreateConnection.opcode, HCILECreateConnection(peer: DeviceAddress(BluetoothAddress("00:00:00:00:00:99")!, type: .publicDevice)).packet),
        (HCILECreateConnectionCancel.opcode, HCILECreateConnectionCancel().packet),
        (HCILEConnectionUpdate.opcode, HCILEConnectionUpdate(handle: 0x0001, parameters: LEConnectionParameters()).packet),
        (HCILEEnableEncryption.opcode, HCILEEnableEncryption(handle: 1, random: 0, ediv: 0, longTermKey: [UInt8](repeating: 1, count: 16)).packet),
        (HCILELongTermKeyRequestReply.opcode, HCILELongTermKeyRequestReply(handle: 1, longTermKey: [UInt8](repeating: 1, count: 16)).packet),
        (HCILELongTermKeyRequestNegativeReply.opcode, HCILELongTermKeyRequestNegativeReply(handle: 1).packet),
        (HCILERemoteConnectionParameterRequestReply.opcode, HCILERemoteConnectionParameterRequestReply(handle: 1, parameters: LEConnectionParameters()).packet),
        (HCILERemoteConnectionParameterRequestNegativeReply.opcode, HCILERemoteConnectionParameterRequestNegativeReply(handle: 1).packet),
        (HCILESetDataLength.opcode, HCILESetDataLength(handle: 1, txOctets: 251, txTime: 2120).packet),
        (HCILEReadSuggestedDefaultDataLength.opcode, HCILEReadSuggestedDefaultDataLength().packet),
        (HCILEWriteSuggestedDefaultDataLength.opcode, HCILEWriteSuggestedDefaultDataLength(length: .maximum).packet),
        (HCILEReadMaximumDataLength.opcode, HCILEReadMaximumDataLength().packet),
        (HCILEReadBufferSizeV2.opcode, HCILEReadBufferSizeV2().packet),
    ]

    @Test func everyDefinedCommandIsAnsweredAndDeclared() async throws {
        let host = try await TestHost(radio, address: "00:00:00:00:00:01") { $0.numHCICommandPackets = 3 }
        try await host.initialize()
        let declared = try await host.run(HCIReadLocalSupportedCommands()).commands
        #expect(Self.allCommands.count == VirtualController.commandCompletions.count)
        for (opcode, packet) in Self.allCommands {
            try host.send(packet)
            let event = try await host.event("answer to \(opcode)") {
                switch $0 {
                case let .commandComplete(e): return e.opcode == opcode
                case let .commandStatus(e): return e.opcode == opcode
                default: return false
                }
            }
            switch event {
            case let .commandComplete(e):
                #expect(e.numHCICommandPackets == 3)
                #expect(HCIStatus(rawValue: e.returnParameters.first ?? 0xFF) != .unknownCommand, "\(opcode)")
            case let .commandStatus(e):
                #expect(e.numHCICommandPackets == 3)
                #expect(e.status != .unknownCommand, "\(opcode)")
            default:
                Issue.record("unexpected \(event)")
            }
            if opcode != .readLocalSupportedCommands { #expect(declared.supports(opcode), "\(opcode) not declared") }
        }
        // Octet 41 bit 5 is LE Read Buffer Size v2; octet 26 bit 6 (Read Filter Accept List Size) is not implemented.
        #expect(declared.octets[41] & 0x20 != 0)
        #expect(declared.octets[26] & 0x40 == 0)
    }

    @Test func informationalCommandsDescribeTheConfiguration() async throws {
        let host = try await TestHost(radio, address: "12:34:56:78:9A:BC")
        let version = try await host.run(HCIReadLocalVersionInformation())
        #expect(version.hciVersion == 0x0B && version.lmpVersion == 0x0B && version.manufacturer == 0x05F1)
        #expect(try await host.run(HCIReadBDADDR()).address == BluetoothAddress("12:34:56:78:9A:BC"))
        let features = try await host.run(HCIReadLocalSupportedFeatures()).features
        #expect(features & HCIFeaturesReturn.lmpLESupported != 0)
        let le = try await host.run(HCILEReadBufferSize())
        #expect(le.aclDataPacketLength == 251 && le.totalACLDataPackets == 8)
        let v2 = try await host.run(HCILEReadBufferSizeV2())
        #expect(v2.aclDataPacketLength == 251 && v2.totalACLDataPackets == 8 && v2.totalISODataPackets == 0)
        let maximum = try await host.run(HCILEReadMaximumDataLength())
        #expect(maximum.tx == LEDataLength(octets: 251, time: 2120) && maximum.rx == .maximum)
        #expect(try await host.run(HCILEReadSuggestedDefaultDataLength()).length == .minimum)
        #expect(try await host.run(HCILEWriteSuggestedDefaultDataLength(length: LEDataLength(octets: 200, time: 1800))).status == .success)
        #expect(try await host.run(HCILEReadSuggestedDefaultDataLength()).length == LEDataLength(octets: 200, time: 1800))
        #expect(try await host.completeStatus(HCILEWriteSuggestedDefaultDataLength(length: LEDataLength(octets: 20, time: 1800))) == .invalidParameters)
        let leFeatures = try await host.run(HCILEReadLocalSupportedFeatures()).features
        #expect(leFeatures & HCILEReadLocalSupportedFeatures.leEncryption != 0)
        #expect(try await host.run(HCILEReadAdvertisingChannelTxPower()).txPower == 0)
    }

    @Test func zeroLEBuffersSendTheHostToReadBufferSize() async throws {
        let host = try await TestHost(radio, address: "00:00:00:00:00:02") {
            $0.leBuffersAreZero = true
            $0.supportsReadBufferSizeV2 = false
            $0.aclBufferSize = 27
            $0.aclBufferCount = 3
        }
        let le = try await host.run(HCILEReadBufferSize())
        #expect(le.aclDataPacketLength == 0 && le.totalACLDataPackets == 0)
        let shared = try await host.run(HCIReadBufferSize())
        #expect(shared.aclDataPacketLength == 27 && shared.totalACLDataPackets == 3)
        // Not implemented in this configuration: unknown and undeclared.
        #expect(try await host.completeStatus(HCILEReadBufferSizeV2()) == .unknownCommand)
        #expect(!(try await host.run(HCIReadLocalSupportedCommands()).commands.supports(.leReadBufferSizeV2)))
    }

    @Test func unknownAndMalformedCommands() async throws {
        let host = try await TestHost(radio, address: "00:00:00:00:00:03")
        // LE Rand (0x2018) is not implemented.
        let unknown = try await host.commandComplete(HCIPacket(type: .command, body: [0x18, 0x20, 0x00]), opcode: HCIOpcode(rawValue: 0x2018))
        #expect(unknown.returnParameters == [0x01])
        // Set Event Mask with 3 parameter bytes instead of 8.
        let short = try await host.commandComplete(HCIPacket(type: .command, body: [0x01, 0x0C, 0x03, 1, 2, 3]), opcode: .setEventMask)
        #expect(short.returnParameters == [0x12])
        // Length field disagreeing with the bytes that follow.
        let mismatch = try await host.commandComplete(HCIPacket(type: .command, body: [0x03, 0x0C, 0x05]), opcode: .reset)
        #expect(mismatch.returnParameters == [0x12])
        // A Command Status command with bad parameters is rejected by Command Status.
        try host.send(HCIPacket(type: .command, body: [0x06, 0x04, 0x01, 0x01]))
        let status = try await host.event("Command Status for Disconnect") {
            if case let .commandStatus(s) = $0 { return s.opcode == .disconnect }
            return false
        }
        #expect(status == .commandStatus(HCICommandStatusEvent(status: .invalidParameters, opcode: .disconnect)))
        // Invalid enumerated value inside otherwise well-sized parameters.
        #expect(try await host.completeStatus(HCILESetAdvertisingParameters(intervalMin: 0x40, intervalMax: 0x20)) == .invalidParameters)
        #expect(try await host.status(HCIDisconnect(handle: 0x0042)) == .unknownConnectionIdentifier)
        #expect(try await host.status(HCIReadRemoteVersionInformation(handle: 0x0042)) == .unknownConnectionIdentifier)
        let ltk = try await host.run(HCILELongTermKeyRequestNegativeReply(handle: 0x0042))
        #expect(ltk.status == .unknownConnectionIdentifier && ltk.handle == 0x0042)
    }

    @Test func commandsDisallowedInTheCurrentState() async throws {
        let host = try await TestHost(radio, address: "00:00:00:00:00:04")
        try await host.initialize()
        // Random own address without LE Set Random Address (Vol 4 Part E 7.8.9 says 0x12).
        #expect(try await host.run(HCILESetAdvertisingParameters(ownAddressType: .randomDevice)).status == .success)
        #expect(try await host.completeStatus(HCILESetAdvertisingEnable(enable: true)) == .invalidParameters)
        #expect(try await host.run(HCILESetAdvertisingParameters()).status == .success)
        #expect(try await host.run(HCILESetAdvertisingEnable(enable: true)).status == .success)
        #expect(try await host.completeStatus(HCILESetAdvertisingParameters()) == .commandDisallowed)
        #expect(try await host.completeStatus(HCILESetRandomAddress(address: BluetoothAddress("C0:00:00:00:00:01")!)) == .commandDisallowed)
        #expect(try await host.run(HCILESetAdvertisingEnable(enable: false)).status == .success)
        #expect(try await host.run(HCILESetRandomAddress(address: BluetoothAddress("C0:00:00:00:00:01")!)).status == .success)
        try await host.scan(active: true)
        #expect(try await host.completeStatus(HCILESetScanParameters()) == .commandDisallowed)
        #expect(try await host.completeStatus(HCILECreateConnectionCancel()) == .commandDisallowed)
        #expect(try await host.status(HCILECreateConnection(peer: DeviceAddress(.zero, type: .publicDevice),
                                                            parameters: LEConnectionParameters(intervalMin: 0x30, intervalMax: 0x20))) == .invalidParameters)
    }

    @Test func failNextCommandAnswersNothingOnce() async throws {
        let host = try await TestHost(radio, address: "00:00:00:00:00:05")
        host.controller.failNextCommand(opcode: .readBDADDR)
        try host.send(HCIReadBDADDR().packet)
        await #expect(throws: TestTimeout.self) {
            _ = try await host.event("swallowed answer", timeout: .milliseconds(200)) { _ in true }
        }
        #expect(try await host.run(HCIReadBDADDR()).status == .success)
    }

    @Test func openTwiceIsRefused() async throws {
        let host = try await TestHost(radio, address: "00:00:00:00:00:06")
        await #expect(throws: HCITransportError.alreadyOpen(host.controller.name)) {
            try await host.controller.open { _ in }
        }
    }
}

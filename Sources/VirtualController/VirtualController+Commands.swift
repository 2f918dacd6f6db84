import BLECore
import HCI

/// Command handling (radio queue). Every command the HCI module defines is answered here.
extension VirtualController {
    /// Commands this controller implements, with how each is acknowledged.
    static let commandCompletions: [HCIOpcode: HCICommandCompletion] = [
        HCIDisconnect.opcode: HCIDisconnect.completion,
        HCIReadRemoteVersionInformation.opcode: HCIReadRemoteVersionInformation.completion,
        HCISetEventMask.opcode: HCISetEventMask.completion,
        HCIReset.opcode: HCIReset.completion,
        HCISetEventMaskPage2.opcode: HCISetEventMaskPage2.completion,
        HCIWriteLEHostSupport.opcode: HCIWriteLEHostSupport.completion,
        HCILEReadSupportedStates.opcode: HCILEReadSupportedStates.completion,
        HCIReadLocalVersionInformation.opcode: HCIReadLocalVersionInformation.completion,
        HCIReadLocalSupportedCommands.opcode: HCIReadLocalSupportedCommands.completion,
        HCIReadLocalSupportedFeatures.opcode: HCIReadLocalSupportedFeatures.completion,
        HCIReadBufferSize.opcode: HCIReadBufferSize.completion,
        HCIReadBDADDR.opcode: HCIReadBDADDR.completion,
        HCILESetEventMask.opcode: HCILESetEventMask.completion,
        HCILEReadBufferSize.opcode: HCILEReadBufferSize.completion,
        HCILEReadLocalSupportedFeatures.opcode: HCILEReadLocalSupportedFeatures.completion,
        HCILESetRandomAddress.opcode: HCILESetRandomAddress.completion,
        HCILESetAdvertisingParameters.opcode: HCILESetAdvertisingParameters.completion,
        HCILEReadAdvertisingChannelTxPower.opcode: HCILEReadAdvertisingChannelTxPower.completion,
        HCILESetAdvertisingData.opcode: HCILESetAdvertisingData.completion,
        HCILESetScanResponseData.opcode: HCILESetScanResponseData.completion,
        HCILESetAdvertisingEnable.opcode: HCILESetAdvertisingEnable.completion,
        HCILESetScanParameters.opcode: HCILESetScanParameters.completion,
        HCILESetScanEnable.opcode: HCILESetScanEnable.completion,
        HCILECreateConnection.opcode: HCILECreateConnection.completion,
        HCILECreateConnectionCancel.opcode: HCILECreateConnectionCancel.completion,
        HCILEConnectionUpdate.opcode: HCILEConnectionUpdate.completion,
        HCILEEnableEncryption.opcode: HCILEEnableEncryption.completion,
        HCILELongTermKeyRequestReply.opcode: HCILELongTermKeyRequestReply.completion,
        HCILELongTermKeyRequestNegativeReply.opcode: HCILELongTermKeyRequestNegativeReply.completion,
        HCILERemoteConnectionParameterRequestReply.opcode: HCILERemoteConnectionParameterRequestReply.completion,
        HCILERemoteConnectionParameterRequestNegativeReply.opcode: HCILERemoteConnectionParameterRequestNegativeReply.completion,
        HCILESetDataLength.opcode: HCILESetDataLength.completion,
        HCILEReadSuggestedDefaultDataLength.opcode: HCILEReadSuggestedDefaultDataLength.completion,
        HCILEWriteSuggestedDefaultDataLength.opcode: HCILEWriteSuggestedDefaultDataLength.completion,
        HCILEReadMaximumDataLength.opcode: HCILEReadMaximumDataLength.completion,
        HCILEReadBufferSizeV2.opcode: HCILEReadBufferSizeV2.completion,
    ]

    func implements(_ opcode: HCIOpcode) -> Bool {
        if opcode == .leReadBufferSizeV2 { return configuration.supportsReadBufferSizeV2 }
        return Self.commandCompletions[opcode] != nil
    }

    /// Exactly the implemented commands (Read Local Supported Commands has no bit of its own).
    var supportedCommands: HCISupportedCommands {
        HCISupportedCommands(supporting: Self.commandCompletions.keys.filter { implements($0) })
    }

    func receiveCommand(_ body: ArraySlice<UInt8>) {
        let packet: HCICommandPacket
        do {
            packet = try HCICommandPacket(body: body)
        } catch {
            logger.error("malformed command packet from host: \(error)")
            // With a readable opcode the host can still be told; otherwise there is nobody to answer.
            guard body.count >= 2 else { return }
            let opcode = HCIOpcode(rawValue: UInt16(body[body.startIndex]) | UInt16(body[body.startIndex + 1]) << 8)
            reject(opcode, implements(opcode) ? .invalidParameters : .unknownCommand)
            return
        }
        if let index = failingOpcodes.firstIndex(of: packet.opcode) {
            failingOpcodes.remove(at: index)
            logger.notice("swallowing \(packet.opcode) as the test asked")
            return
        }
        guard implements(packet.opcode) else {
            logger.warning("unknown command \(packet.opcode)")
            commandComplete(packet.opcode, [HCIStatus.unknownCommand.rawValue])
            return
        }
        dispatch(packet)
    }

    /// Answers with an error status in the acknowledgement form the command uses.
    func reject(_ opcode: HCIOpcode, _ status: HCIStatus) {
        if Self.commandCompletions[opcode] == .commandStatus {
            commandStatus(opcode, status)
        } else {
            commandComplete(opcode, [status.rawValue])
        }
    }

    private func decode<C: HCICommand>(_ packet: HCICommandPacket, _ type: C.Type) -> C? {
        do {
            return try packet.decode(type)
        } catch {
            logger.warning("invalid parameters for \(packet.opcode): \(error)")
            reject(packet.opcode, .invalidParameters)
            return nil
        }
    }

    private func complete<C: HCICommand>(_ packet: HCICommandPacket, _ type: C.Type, _ body: (C) -> [UInt8]) {
        guard let command = decode(packet, type) else { return }
        commandComplete(C.opcode, body(command))
    }

    /// Runs a Command Status command: `body` validates and returns a status plus the follow-up work,
    /// which runs only after the Command Status went out.
    private func status<C: HCICommand>(_ packet: HCICommandPacket, _ type: C.Type, _ body: (C) -> (HCIStatus, (() -> Void)?)) {
        guard let command = decode(packet, type) else { return }
        let (status, followUp) = body(command)
        commandStatus(C.opcode, status)
        if status.isSuccess { followUp?() }
    }

    private static let ok: [UInt8] = [HCIStatus.success.rawValue]

    private func handleReturn(_ status: HCIStatus, _ handle: UInt16) -> [UInt8] {
        HCIHandleReturn(status: status, handle: handle).encoded
    }

    private func dispatch(_ packet: HCICommandPacket) {
        let config = configuration
        switch packet.opcode {
        case .reset:
            complete(packet, HCIReset.self) { _ in resetState(); return Self.ok }
        case .setEventMask:
            complete(packet, HCISetEventMask.self) { eventMask = $0.mask; return Self.ok }
        case .setEventMaskPage2:
            complete(packet, HCISetEventMaskPage2.self) { eventMaskPage2 = $0.mask; return Self.ok }
        case .leSetEventMask:
            complete(packet, HCILESetEventMask.self) { leEventMask = $0.mask; return Self.ok }
        case .writeLEHostSupport:
            // LE-only: the LE Supported (Host) feature has nothing to switch on.
            complete(packet, HCIWriteLEHostSupport.self) { _ in Self.ok }
        case .leReadSupportedStates:
            complete(packet, HCILEReadSupportedStates.self) { _ in HCILESupportedStatesReturn(states: config.leStates).encoded }
        case .readLocalVersionInformation:
            complete(packet, HCIReadLocalVersionInformation.self) { _ in
                HCILocalVersionInformation(hciVersion: config.hciVersion, hciRevision: config.hciRevision, lmpVersion: config.lmpVersion,
                                           manufacturer: config.manufacturer, lmpSubversion: config.lmpSubversion).encoded
            }
        case .readLocalSupportedCommands:
            complete(packet, HCIReadLocalSupportedCommands.self) { _ in HCISupportedCommandsReturn(commands: supportedCommands).encoded }
        case .readLocalSupportedFeatures:
            complete(packet, HCIReadLocalSupportedFeatures.self) { _ in
                HCIFeaturesReturn(features: HCIFeaturesReturn.lmpLESupported | HCIFeaturesReturn.lmpBREDRNotSupported).encoded
            }
        case .readBufferSize:
            complete(packet, HCIReadBufferSize.self) { _ in
                HCIBufferSizeReturn(aclDataPacketLength: config.aclBufferSize, totalACLDataPackets: UInt16(config.aclBufferCount)).encoded
            }
        case .readBDADDR:
            complete(packet, HCIReadBDADDR.self) { _ in HCIBDADDRReturn(address: config.address).encoded }
        case .leReadBufferSize:
            complete(packet, HCILEReadBufferSize.self) { _ in
                config.leBuffersAreZero
                    ? HCILEBufferSizeReturn(aclDataPacketLength: 0, totalACLDataPackets: 0).encoded
                    : HCILEBufferSizeReturn(aclDataPacketLength: config.aclBufferSize, totalACLDataPackets: config.aclBufferCount).encoded
            }
        case .leReadBufferSizeV2:
            complete(packet, HCILEReadBufferSizeV2.self) { _ in
                config.leBuffersAreZero
                    ? HCILEBufferSizeV2Return(aclDataPacketLength: 0, totalACLDataPackets: 0).encoded
                    : HCILEBufferSizeV2Return(aclDataPacketLength: config.aclBufferSize, totalACLDataPackets: config.aclBufferCount).encoded
            }
        case .leReadLocalSupportedFeatures:
            complete(packet, HCILEReadLocalSupportedFeatures.self) { _ in
                HCIFeaturesReturn(features: HCILEReadLocalSupportedFeatures.leEncryption
                                  | Self.connectionParametersRequestProcedure
                                  | HCILEReadLocalSupportedFeatures.dataPacketLengthExtension).encoded
            }
        case .leSetRandomAddress:
            complete(packet, HCILESetRandomAddress.self) { command in
                // Vol 4 Part E 7.8.4: not while advertising, scanning or initiating.
                guard !isAdvertising, !isScanning, pendingCreate == nil else { return [HCIStatus.commandDisallowed.rawValue] }
                randomAddress = command.address
                return Self.ok
            }
        case .leReadAdvertisingChannelTxPower:
            complete(packet, HCILEReadAdvertisingChannelTxPower.self) { _ in HCITxPowerReturn(txPower: config.txPower).encoded }
        case .leSetAdvertisingParameters:
            complete(packet, HCILESetAdvertisingParameters.self) { [setAdvertisingParameters($0).rawValue] }
        case .leSetAdvertisingData:
            complete(packet, HCILESetAdvertisingData.self) { command in
                advertisingData = command.payload.data
                return Self.ok
            }
            advertisingContentChanged()
        case .leSetScanResponseData:
            complete(packet, HCILESetScanResponseData.self) { command in
                scanResponseData = command.payload.data
                return Self.ok
            }
            advertisingContentChanged()
        case .leSetAdvertisingEnable:
            guard let command = decode(packet, HCILESetAdvertisingEnable.self) else { return }
            setAdvertisingEnable(command)
        case .leSetScanParameters:
            complete(packet, HCILESetScanParameters.self) { [setScanParameters($0).rawValue] }
        case .leSetScanEnable:
            guard let command = decode(packet, HCILESetScanEnable.self) else { return }
            setScanEnable(command)
        case .leCreateConnection:
            status(packet, HCILECreateConnection.self) { createConnection($0) }
        case .leCreateConnectionCancel:
            guard decode(packet, HCILECreateConnectionCancel.self) != nil else { return }
            cancelCreateConnection()
        case .disconnect:
            status(packet, HCIDisconnect.self) { disconnect($0) }
        case .readRemoteVersionInformation:
            status(packet, HCIReadRemoteVersionInformation.self) { readRemoteVersion($0) }
        case .leConnectionUpdate:
            status(packet, HCILEConnectionUpdate.self) { connectionUpdate($0) }
        case .leEnableEncryption:
            status(packet, HCILEEnableEncryption.self) { enableEncryption($0) }
        case .leLongTermKeyRequestReply:
            complete(packet, HCILELongTermKeyRequestReply.self) { command in
                handleReturn(longTermKeyReply(handle: command.handle, key: command.longTermKey), command.handle)
            }
        case .leLongTermKeyRequestNegativeReply:
            complete(packet, HCILELongTermKeyRequestNegativeReply.self) { command in
                handleReturn(longTermKeyReply(handle: command.handle, key: nil), command.handle)
            }
        case .leRemoteConnectionParameterRequestReply:
            complete(packet, HCILERemoteConnectionParameterRequestReply.self) { command in
                let status = Self.isValid(command.parameters)
                    ? answerParameterRequest(handle: command.handle, accepted: command.parameters, reason: .success)
                    : .invalidParameters
                return handleReturn(status, command.handle)
            }
        case .leRemoteConnectionParameterRequestNegativeReply:
            complete(packet, HCILERemoteConnectionParameterRequestNegativeReply.self) { command in
                handleReturn(answerParameterRequest(handle: command.handle, accepted: nil, reason: command.reason), command.handle)
            }
        case .leSetDataLength:
            guard let command = decode(packet, HCILESetDataLength.self) else { return }
            setDataLength(command)
        case .leReadSuggestedDefaultDataLength:
            complete(packet, HCILEReadSuggestedDefaultDataLength.self) { _ in
                HCISuggestedDataLengthReturn(length: suggestedDataLength).encoded
            }
        case .leWriteSuggestedDefaultDataLength:
            complete(packet, HCILEWriteSuggestedDefaultDataLength.self) { command in
                guard Self.isValidDataLength(command.length) else { return [HCIStatus.invalidParameters.rawValue] }
                suggestedDataLength = command.length
                return Self.ok
            }
        case .leReadMaximumDataLength:
            complete(packet, HCILEReadMaximumDataLength.self) { _ in
                HCIMaximumDataLengthReturn(tx: .maximum, rx: .maximum).encoded
            }
        default:
            commandComplete(packet.opcode, [HCIStatus.unknownCommand.rawValue])
        }
    }

    /// LE feature bit 1: Connection Parameters Request Procedure.
    static let connectionParametersRequestProcedure: UInt64 = 1 << 1

    /// Vol 4 Part E 7.8.33: octets 0x001B–0x00FB, time 0x0148–0x4290.
    static func isValidDataLength(_ length: LEDataLength) -> Bool {
        (27...251).contains(length.octets) && (0x0148...0x4290).contains(length.time)
    }

    /// Connection timing limits of Vol 4 Part E 7.8.12, including the supervision timeout rule
    /// timeout > (1 + latency) × interval_max × 2.
    static func isValid(_ parameters: LEConnectionParameters) -> Bool {
        guard (0x0006...0x0C80).contains(parameters.intervalMin), (0x0006...0x0C80).contains(parameters.intervalMax),
              parameters.intervalMin <= parameters.intervalMax, parameters.latency <= 0x01F3,
              (0x000A...0x0C80).contains(parameters.supervisionTimeout) else { return false }
        // Units: timeout 10 ms, interval 1.25 ms → timeout×10 > (1+latency)×interval×2.5.
        return UInt32(parameters.supervisionTimeout) * 4 > (1 + UInt32(parameters.latency)) * UInt32(parameters.intervalMax)
    }

    /// Resets everything a host can change, as HCI Reset does. Links vanish (the peers time out).
    func resetState() {
        stopAdvertising()
        if isScanning { radio.stopScanning(self) }
        isScanning = false
        filterDuplicates = false
        reportedAdvertisements = []
        if pendingCreate != nil { radio.stopInitiating(self) }
        pendingCreate = nil
        for handle in links.keys.sorted() {
            guard let link = links[handle] else { continue }
            radio.vanish(self, from: link)
        }
        links = [:]
        reservedHandles = []
        buffered = [:]
        batchPending = [:]
        reassemblers = [:]
        eventMask = Self.defaultEventMask
        eventMaskPage2 = 0
        leEventMask = Self.defaultLEEventMask
        randomAddress = nil
        advertisingParameters = Self.defaultAdvertisingParameters
        advertisingData = []
        scanResponseData = []
        scanParameters = Self.defaultScanParameters
        suggestedDataLength = .minimum
    }
}

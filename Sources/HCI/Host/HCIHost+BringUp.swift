import BLECore
import Logging

/// Bring-up: Reset and the initialisation sequence (Core spec Vol 6 Part D 2.1, Vol 4 Part E 4.2).
///
/// Only what the host cannot run without is required: Reset, the local version, commands and
/// features, the event masks (the LE mask stepping down when refused), a buffer size and the
/// address. Everything else is optional, as Linux's `hci_sync.c` treats it: a refusal or a short or
/// malformed answer turns its feature off with a warning (`ControllerLimitation`). A timeout is not
/// tolerated here: the caller resets and tries again.
extension HCIHost {
    /// HCI_Version 0x0C: Core 5.3, the first with an event (Encryption Change v2) we want from Page 2.
    static let hciVersion5_3: UInt8 = 0x0C

    func initializeController() async throws(HCIHostError) -> ControllerInfo {
        commandCredits = 1
        var limitations: [ControllerLimitation] = []
        _ = try await execute(HCIReset(), timeout: configuration.resetTimeout)
        let version = try await execute(HCIReadLocalVersionInformation())
        if let rom = ControllerLimitation.romFirmware(version) { limitations.append(rom) }
        let commands = try await readSupportedCommands()
        let lmpFeatures = try await execute(HCIReadLocalSupportedFeatures()).features
        guard lmpFeatures & HCIFeaturesReturn.lmpLESupported != 0 || commands.supports(.leSetAdvertisingEnable) else {
            throw .unsupportedController("it does not support Bluetooth Low Energy")
        }
        _ = try await execute(HCISetEventMask.leHostDefault)
        // Linux: "Some Broadcom based controllers indicate support for Set Event Mask Page 2 command,
        // but then actually do not support it"; its only event we use is a 5.3 one.
        if version.hciVersion >= Self.hciVersion5_3, commands.supports(.setEventMaskPage2) {
            _ = try await optional(HCISetEventMaskPage2(mask: HCISetEventMaskPage2.encryptionChangeV2), &limitations,
                                   "Encryption Change v1 only; the key size is the one pairing agreed")
        }
        // Reset clears "LE Supported (Host)"; dual-mode controllers get it back before any LE command.
        if lmpFeatures & HCIFeaturesReturn.lmpBREDRNotSupported == 0 {
            _ = try await optional(HCIWriteLEHostSupport(), &limitations,
                                   "LE Supported (Host) stays clear; LE commands may be refused")
        }
        let leFeatures = try await optional(HCILEReadLocalSupportedFeatures(), &limitations,
                                            "no LE features assumed (no data length extension, no privacy)")?.features ?? 0
        let leEventMask = try await setLEEventMask(HCILESetEventMask.forController(leFeatures: leFeatures), &limitations)
        let (bufferSize, bufferCount) = try await readBufferSize(commands: commands, leFeatures: leFeatures, &limitations)
        var leStates: LESupportedStates? = nil
        if commands.supports(.leReadSupportedStates) {
            leStates = try await optional(HCILEReadSupportedStates(), &limitations,
                                          "state combinations unknown; advertising beside a link is tried and its refusal handled")?.states
        }
        if let leStates, !leStates.allowsConnectableAdvertisingWhilePeripheral {
            limitations.append(.cannotAdvertiseWhileConnected)
        }
        let address = try await execute(HCIReadBDADDR()).address
        var advertisingTxPower: Int8? = nil
        if commands.supports(.leReadAdvertisingChannelTxPower) {
            advertisingTxPower = try await optional(HCILEReadAdvertisingChannelTxPower(), &limitations,
                                                    "advertisements carry no TX Power Level")?.txPower
        }
        var suggested: LEDataLength? = nil
        if leFeatures & HCILEReadLocalSupportedFeatures.dataPacketLengthExtension != 0 {
            if commands.supports(.leWriteSuggestedDefaultDataLength) {
                _ = try await optional(HCILEWriteSuggestedDefaultDataLength(length: configuration.suggestedDataLength), &limitations,
                                       "new links start with the controller's default data length")
            }
            if commands.supports(.leReadSuggestedDefaultDataLength) {
                suggested = try await optional(HCILEReadSuggestedDefaultDataLength(), &limitations,
                                               "suggested data length unknown")?.length
            }
        }
        acl.configure(bufferSize: bufferSize, bufferCount: bufferCount)
        links.endReset()
        let info = ControllerInfo(version: version, supportedCommands: commands, lmpFeatures: lmpFeatures, leFeatures: leFeatures,
                                  publicAddress: address, aclBufferSize: bufferSize, aclBufferCount: bufferCount,
                                  suggestedDataLength: suggested, leEventMask: leEventMask, leStates: leStates,
                                  advertisingTxPower: advertisingTxPower, limitations: limitations)
        controllerInfo = info
        logger.info("controller ready: HCI version \(version.hciVersion), manufacturer 0x\(String(version.manufacturer, radix: 16)), address \(address), ACL \(bufferCount) x \(bufferSize) bytes")
        for limitation in limitations { logger.warning("\(limitation)") }
        return info
    }

    private func readSupportedCommands() async throws(HCIHostError) -> HCISupportedCommands {
        do {
            return try await execute(HCIReadLocalSupportedCommands()).commands
        } catch {
            switch error {
            case .commandFailed, .malformedResponse:
                // Pre-1.2 controllers lack the command: assume the LE basics every LE controller has,
                // and none of the optional commands.
                logger.warning("\(error); assuming the basic LE commands")
                let optional: Set<HCIOpcode> = [.leReadBufferSizeV2, .setEventMaskPage2, .leReadSupportedStates]
                return HCISupportedCommands(supporting: HCISupportedCommands.positions.keys.filter { !optional.contains($0) })
            default:
                throw error
            }
        }
    }

    /// Steps down the mask's fallback ladder while the controller refuses; the last refusal is fatal.
    private func setLEEventMask(_ wanted: HCILESetEventMask, _ limitations: inout [ControllerLimitation]) async throws(HCIHostError) -> UInt64 {
        let ladder = wanted.fallbackLadder
        for (index, mask) in ladder.enumerated() {
            do {
                _ = try await execute(mask)
                if index > 0 { limitations.append(.leEventMaskReduced(wanted: wanted.mask, accepted: mask.mask)) }
                return mask.mask
            } catch {
                guard case .commandFailed = error, index < ladder.count - 1 else { throw error }
                logger.info("\(error); trying LE event mask 0x\(String(ladder[index + 1].mask, radix: 16))")
            }
        }
        throw .unsupportedController("it refuses every LE event mask")
    }

    /// The LE ACL buffers, or the shared BR/EDR ones when LE reports none (Vol 4 Part E 7.8.2).
    private func readBufferSize(commands: HCISupportedCommands, leFeatures: UInt64,
                                _ limitations: inout [ControllerLimitation]) async throws(HCIHostError) -> (size: Int, count: Int) {
        var buffers: (size: Int, count: Int)? = nil
        // v2 only adds ISO buffers; Linux asks for it only from ISO-capable controllers.
        if leFeatures & HCILEReadLocalSupportedFeatures.isochronousChannels != 0, commands.supports(.leReadBufferSizeV2) {
            buffers = try await optional(HCILEReadBufferSizeV2(), &limitations, "LE Read Buffer Size v1 used instead")
                .map { (Int($0.aclDataPacketLength), Int($0.totalACLDataPackets)) }
        }
        if buffers == nil {
            let v1 = try await execute(HCILEReadBufferSize())
            buffers = (Int(v1.aclDataPacketLength), Int(v1.totalACLDataPackets))
        }
        if let found = buffers, found.size > 0, found.count > 0 { return found }
        let shared = try await execute(HCIReadBufferSize())
        guard shared.aclDataPacketLength > 0, shared.totalACLDataPackets > 0 else {
            throw .unsupportedController("it reports no ACL buffers")
        }
        return (Int(shared.aclDataPacketLength), Int(shared.totalACLDataPackets))
    }

    /// Sends an optional command: nil, and the limitation recorded, when it is refused or its answer
    /// is malformed. Timeouts and resets still fail bring-up.
    private func optional<Command: HCICommand>(_ command: Command, _ limitations: inout [ControllerLimitation],
                                               _ consequence: String) async throws(HCIHostError) -> Command.ReturnParameters? {
        do {
            return try await execute(command)
        } catch {
            switch error {
            case let .commandFailed(opcode, status):
                limitations.append(.commandRefused(opcode, status, consequence: consequence))
            case let .malformedResponse(opcode, _):
                limitations.append(.malformedAnswer(opcode, consequence: consequence))
            default:
                throw error
            }
            return nil
        }
    }
}

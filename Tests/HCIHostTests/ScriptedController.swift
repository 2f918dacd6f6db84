import BLECore
import Synchronization
@testable import HCI

/// A minimal controller for host tests: answers every command with success return parameters,
/// records what it saw and can be told to stay silent or misbehave. A `ControllerProfile` makes it
/// answer, and refuse, as a real chip does.
final class ScriptedController: HCITransport, Sendable {
    struct State {
        var profile: ControllerProfile? = nil
        var leHostSupported = false
        /// Answered with a bare success status, as a CSR clone answers with undersized parameters.
        var malformed: Set<HCIOpcode> = []
        var handler: (@Sendable (HCITransportEvent) -> Void)? = nil
        var commands: [HCIOpcode] = []
        var acl: [HCIACLPacket] = []
        var outstandingCommands = 0
        var maxOutstandingCommands = 0
        var silentOnce: Set<HCIOpcode> = []
        var aclBufferSize: UInt16 = 27
        var aclBufferCount: UInt8 = 4
        var leBuffersZero = false
        var supportsV2 = true
        var commandCredits: UInt8 = 1
        /// When set, answers are held until `releaseAnswers()`.
        var holdAnswers = false
        var heldAnswers: [HCIPacket] = []
        var commandWaiters: [(opcode: HCIOpcode?, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var discardedACLHandles: [UInt16] = []
        var discardedAll = 0
    }

    let state: Mutex<State>
    var name: String { "scripted" }

    init() { state = Mutex(State()) }

    /// Answers as `profile` says: its version, commands, features, states and buffers, its refusals.
    init(profile: ControllerProfile) {
        var initial = State(profile: profile)
        initial.aclBufferSize = UInt16(profile.leAclBuffers[0])
        initial.aclBufferCount = UInt8(profile.leAclBuffers[1])
        initial.leBuffersZero = profile.leAclBuffers.allSatisfy { $0 == 0 }
        if let dropped = profile.dropReplyOnce { initial.silentOnce.insert(dropped) }
        state = Mutex(initial)
    }

    func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        state.withLock { $0.handler = handler }
    }

    func close() {
        let handler = state.withLock { state -> (@Sendable (HCITransportEvent) -> Void)? in
            defer { state.handler = nil }
            return state.handler
        }
        handler?(.closed(nil))
    }

    func deliver(_ packet: HCIPacket) {
        let handler = state.withLock { $0.handler }
        handler?(.packet(packet))
    }

    func dropLink() {
        let handler = state.withLock { state -> (@Sendable (HCITransportEvent) -> Void)? in
            defer { state.handler = nil }
            return state.handler
        }
        handler?(.closed(.disconnected("test dropped the link")))
    }

    func releaseAnswers(keepHolding: Bool = false) {
        let held = state.withLock { state -> [HCIPacket] in
            defer { state.heldAnswers = []; state.holdAnswers = keepHolding }
            return state.heldAnswers
        }
        for packet in held {
            state.withLock { $0.outstandingCommands -= 1 }
            deliver(packet)
        }
    }

    var commands: [HCIOpcode] { state.withLock { $0.commands } }

    /// Barrier: returns once `count` commands with `opcode` (any opcode when nil) were sent.
    func waitForCommand(_ opcode: HCIOpcode? = nil, count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if Self.seen(opcode, in: state) >= count { return true }
                state.commandWaiters.append((opcode, count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func seen(_ opcode: HCIOpcode?, in state: State) -> Int {
        opcode.map { wanted in state.commands.filter { $0 == wanted }.count } ?? state.commands.count
    }

    func discardQueuedACL(handle: UInt16) { state.withLock { $0.discardedACLHandles.append(handle) } }
    func discardQueuedPackets() { state.withLock { $0.discardedAll += 1 } }

    /// Reports a stall as a transport that stopped draining would.
    func stall() {
        let handler = state.withLock { $0.handler }
        handler?(.stalled(.stalled("scripted", milliseconds: 2000)))
    }
    var acl: [HCIACLPacket] { state.withLock { $0.acl } }

    func send(_ packet: HCIPacket) throws(HCITransportError) {
        switch packet.type {
        case .command:
            guard let command = try? HCICommandPacket(body: packet.body) else { return }
            let (reply, woken): (HCIPacket?, [CheckedContinuation<Void, Never>]) = state.withLock { state in
                state.commands.append(command.opcode)
                var woken: [CheckedContinuation<Void, Never>] = []
                let snapshot = state
                state.commandWaiters.removeAll { waiter in
                    guard Self.seen(waiter.opcode, in: snapshot) >= waiter.count else { return false }
                    woken.append(waiter.continuation)
                    return true
                }
                state.outstandingCommands += 1
                state.maxOutstandingCommands = max(state.maxOutstandingCommands, state.outstandingCommands)
                if state.silentOnce.remove(command.opcode) != nil { return (nil, woken) }
                if command.opcode == .writeLEHostSupport { state.leHostSupported = command.parameters.first == 1 }
                let reply = self.refusal(of: command, state: state) ?? self.answer(to: command.opcode, state: state)
                if state.holdAnswers {
                    state.heldAnswers.append(reply)
                    return (nil, woken)
                }
                state.outstandingCommands -= 1
                return (reply, woken)
            }
            woken.forEach { $0.resume() }
            // Answer asynchronously, as a real controller would.
            if let reply { Task { self.deliver(reply) } }
        case .acl:
            if let fragment = try? HCIACLPacket(body: packet.body) {
                state.withLock { $0.acl.append(fragment) }
            }
        default:
            break
        }
    }

    /// The profile's refusals: a command listed but refused, LE event mask bits it does not know,
    /// LE commands before Write LE Host Support.
    private func refusal(of command: HCICommandPacket, state: State) -> HCIPacket? {
        guard let profile = state.profile else { return nil }
        var status = profile.refusals[command.opcode]
        if command.opcode == .leSetEventMask, let limit = profile.leEventMaskLimit,
           let mask = try? command.decode(HCILESetEventMask.self).mask, mask & ~limit != 0 {
            status = .invalidParameters
        }
        if profile.strict.leHostSupportRequired == true, command.opcode.ogf == 0x08, !state.leHostSupported {
            status = .commandDisallowed
        }
        if state.malformed.contains(command.opcode) { status = .success }
        guard let status else { return nil }
        return HCIEvent.commandComplete(.init(numHCICommandPackets: state.commandCredits, opcode: command.opcode,
                                              returnParameters: [status.rawValue])).packet
    }

    private func answer(to opcode: HCIOpcode, state: State) -> HCIPacket {
        let parameters: [UInt8]
        let profile = state.profile
        switch opcode {
        case .readLocalVersionInformation:
            parameters = (profile?.version ?? HCILocalVersionInformation(hciVersion: 11, hciRevision: 1, lmpVersion: 11, manufacturer: 0x05F1, lmpSubversion: 1)).encoded
        case .readLocalSupportedCommands:
            var commands = profile?.supportedCommands ?? HCISupportedCommands(supporting: Array(HCISupportedCommands.positions.keys))
            if !state.supportsV2 { commands = HCISupportedCommands(supporting: HCISupportedCommands.positions.keys.filter { $0 != .leReadBufferSizeV2 && commands.supports($0) }) }
            parameters = HCISupportedCommandsReturn(commands: commands).encoded
        case .readLocalSupportedFeatures:
            parameters = HCIFeaturesReturn(features: profile?.lmpFeatureBits ?? HCIFeaturesReturn.lmpLESupported).encoded
        case .leReadLocalSupportedFeatures:
            parameters = HCIFeaturesReturn(features: profile?.leFeatureBits ?? Self.defaultLEFeatures).encoded
        case .leReadSupportedStates:
            parameters = HCILESupportedStatesReturn(states: profile?.states ?? LESupportedStates(rawValue: 0x3FF_FFFF_FFFF)).encoded
        case .leReadBufferSizeV2:
            parameters = HCILEBufferSizeV2Return(aclDataPacketLength: state.leBuffersZero ? 0 : state.aclBufferSize,
                                                 totalACLDataPackets: state.leBuffersZero ? 0 : state.aclBufferCount).encoded
        case .leReadBufferSize:
            parameters = HCILEBufferSizeReturn(aclDataPacketLength: state.leBuffersZero ? 0 : state.aclBufferSize,
                                               totalACLDataPackets: state.leBuffersZero ? 0 : state.aclBufferCount).encoded
        case .readBufferSize:
            let shared = profile?.aclBuffers ?? [1021, 6]
            parameters = HCIBufferSizeReturn(aclDataPacketLength: UInt16(shared[0]), totalACLDataPackets: UInt16(shared[1])).encoded
        case .readBDADDR:
            parameters = HCIBDADDRReturn(address: BluetoothAddress("00:1B:DC:01:02:03")!).encoded
        case .leReadSuggestedDefaultDataLength:
            parameters = HCISuggestedDataLengthReturn(length: .maximum).encoded
        case .leReadAdvertisingChannelTxPower:
            parameters = HCITxPowerReturn(txPower: Self.advertisingTxPower).encoded
        default:
            parameters = [0x00]
        }
        if opcode == .disconnect || opcode == .readRemoteVersionInformation {
            return HCIEvent.commandStatus(.init(status: .success, numHCICommandPackets: state.commandCredits, opcode: opcode)).packet
        }
        return HCIEvent.commandComplete(.init(numHCICommandPackets: state.commandCredits, opcode: opcode, returnParameters: parameters)).packet
    }

    /// Negative, so a host that loses the sign shows.
    static let advertisingTxPower: Int8 = -3

    /// Encryption, Connection Parameters Request, data length extension and LL privacy, with no
    /// isochronous channels: what the host's event mask and buffer reads are built from.
    static let defaultLEFeatures: UInt64 = HCILEReadLocalSupportedFeatures.leEncryption
        | HCILEReadLocalSupportedFeatures.connectionParametersRequest
        | HCILEReadLocalSupportedFeatures.dataPacketLengthExtension | HCILEReadLocalSupportedFeatures.llPrivacy
}

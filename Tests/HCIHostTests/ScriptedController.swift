import BLECore
import Synchronization
@testable import HCI

/// A minimal controller for host tests: answers every command with success return parameters,
/// records what it saw and can be told to stay silent or misbehave.
final class ScriptedController: HCITransport, Sendable {
    struct State {
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

    let state = Mutex(State())
    var name: String { "scripted" }

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
                let reply = self.answer(to: command.opcode, state: state)
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

    private func answer(to opcode: HCIOpcode, state: State) -> HCIPacket {
        let parameters: [UInt8]
        switch opcode {
        case .readLocalVersionInformation:
            parameters = HCILocalVersionInformation(hciVersion: 11, hciRevision: 1, lmpVersion: 11, manufacturer: 0x05F1, lmpSubversion: 1).encoded
        case .readLocalSupportedCommands:
            var all = Array(HCISupportedCommands.positions.keys)
            if !state.supportsV2 { all.removeAll { $0 == .leReadBufferSizeV2 } }
            parameters = HCISupportedCommandsReturn(commands: HCISupportedCommands(supporting: all)).encoded
        case .readLocalSupportedFeatures:
            parameters = HCIFeaturesReturn(features: HCIFeaturesReturn.lmpLESupported).encoded
        case .leReadLocalSupportedFeatures:
            parameters = HCIFeaturesReturn(features: HCILEReadLocalSupportedFeatures.dataPacketLengthExtension).encoded
        case .leReadBufferSizeV2:
            parameters = HCILEBufferSizeV2Return(aclDataPacketLength: state.leBuffersZero ? 0 : state.aclBufferSize,
                                                 totalACLDataPackets: state.leBuffersZero ? 0 : state.aclBufferCount).encoded
        case .leReadBufferSize:
            parameters = HCILEBufferSizeReturn(aclDataPacketLength: state.leBuffersZero ? 0 : state.aclBufferSize,
                                               totalACLDataPackets: state.leBuffersZero ? 0 : state.aclBufferCount).encoded
        case .readBufferSize:
            parameters = HCIBufferSizeReturn(aclDataPacketLength: 1021, totalACLDataPackets: 6).encoded
        case .readBDADDR:
            parameters = HCIBDADDRReturn(address: BluetoothAddress("00:1B:DC:01:02:03")!).encoded
        case .leReadSuggestedDefaultDataLength:
            parameters = HCISuggestedDataLengthReturn(length: .maximum).encoded
        default:
            parameters = [0x00]
        }
        if opcode == .disconnect || opcode == .readRemoteVersionInformation {
            return HCIEvent.commandStatus(.init(status: .success, numHCICommandPackets: state.commandCredits, opcode: opcode)).packet
        }
        return HCIEvent.commandComplete(.init(numHCICommandPackets: state.commandCredits, opcode: opcode, returnParameters: parameters)).packet
    }
}

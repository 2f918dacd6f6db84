import BLECore
import HCI
import Synchronization

/// A controller stand-in for the benchmark: answers every command at once, swallows ACL packets
/// (the transport write is not part of the measured host cost), and lets the benchmark inject
/// connections and inbound ATT PDUs.
final class BenchController: HCITransport, Sendable {
    let handler = Mutex<(@Sendable (HCITransportEvent) -> Void)?>(nil)
    let aclPackets = Atomic<Int>(0)
    let aclBytes = Atomic<Int>(0)
    /// ATT responses the host sent (by connection handle), and setup steps waiting for them.
    private let responses = Mutex<(counts: [UInt16: Int], waiters: [(handle: UInt16, count: Int, continuation: CheckedContinuation<Void, Never>)])>(([:], []))
    var name: String { "bench" }

    func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        self.handler.withLock { $0 = handler }
    }

    func close() {
        let handler = self.handler.withLock { current -> (@Sendable (HCITransportEvent) -> Void)? in
            defer { current = nil }
            return current
        }
        handler?(.closed(nil))
    }

    func send(_ packet: HCIPacket) throws(HCITransportError) {
        switch packet.type {
        case .acl:
            aclPackets.add(1, ordering: .relaxed)
            aclBytes.add(packet.h4Bytes.count, ordering: .relaxed)
            noteResponse(packet)
        case .command:
            guard let command = try? HCICommandPacket(body: packet.body) else { return }
            deliver(HCIEvent.commandComplete(.init(opcode: command.opcode, returnParameters: Self.answer(command.opcode))).packet)
        default:
            break
        }
    }

    func deliver(_ packet: HCIPacket) {
        let handler = self.handler.withLock { $0 }
        handler?(.packet(packet))
    }

    func connect(handle: UInt16) {
        let peer = DeviceAddress(BluetoothAddress(littleEndian: [UInt8(handle), 0, 0, 0, 0, 0xC3]), type: .randomDevice)
        deliver(HCIEvent.le(.connectionComplete(LEConnectionCompleteEvent(handle: handle, role: .peripheral, peer: peer,
                                                                           interval: 6, latency: 0, supervisionTimeout: 100))).packet)
    }

    /// Counts Exchange MTU (0x03) and Write (0x13) Responses: setup waits for them, since a
    /// central sends its next request only after the previous one was answered.
    private func noteResponse(_ packet: HCIPacket) {
        // H4 type, ACL header (4), L2CAP header (4), then the ATT opcode.
        let bytes = packet.h4Bytes
        guard bytes.count >= 10, bytes[9] == 0x03 || bytes[9] == 0x13 else { return }
        let handle = (UInt16(bytes[1]) | UInt16(bytes[2]) << 8) & 0x0FFF
        let woken = responses.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.counts[handle, default: 0] += 1
            let counts = state.counts
            var woken: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard counts[waiter.handle, default: 0] >= waiter.count else { return false }
                woken.append(waiter.continuation)
                return true
            }
            return woken
        }
        woken.forEach { $0.resume() }
    }

    /// Returns once the host answered `count` requests on `handle`.
    func waitForResponses(_ count: Int, on handle: UInt16) async {
        await withCheckedContinuation { continuation in
            let ready = responses.withLock { state -> Bool in
                if state.counts[handle, default: 0] >= count { return true }
                state.waiters.append((handle, count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// An ATT PDU from a central, framed as L2CAP in one ACL packet.
    func receiveATT(_ payload: [UInt8], on handle: UInt16) {
        let pdu = [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), 0x04, 0x00] + payload
        deliver(HCIACLPacket(handle: handle, boundary: .firstFlushable, data: pdu).packet)
    }

    private static func answer(_ opcode: HCIOpcode) -> [UInt8] {
        switch opcode {
        case .readLocalVersionInformation:
            return HCILocalVersionInformation(hciVersion: 11, hciRevision: 0, lmpVersion: 11, manufacturer: 0x05F1, lmpSubversion: 0).encoded
        case .readLocalSupportedCommands:
            return HCISupportedCommandsReturn(commands: HCISupportedCommands(supporting: Array(HCISupportedCommands.positions.keys))).encoded
        case .readLocalSupportedFeatures:
            return HCIFeaturesReturn(features: HCIFeaturesReturn.lmpLESupported).encoded
        case .leReadLocalSupportedFeatures:
            return HCIFeaturesReturn(features: 0).encoded
        case .leReadBufferSizeV2:
            // Many buffers: credits are returned between timed rounds, outside the measurement.
            return HCILEBufferSizeV2Return(aclDataPacketLength: 251, totalACLDataPackets: 255).encoded
        case .readBDADDR:
            return HCIBDADDRReturn(address: BluetoothAddress("00:1B:DC:BE:0C:01")!).encoded
        default:
            return [0x00]
        }
    }
}

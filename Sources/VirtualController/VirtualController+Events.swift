import BLECore
import HCI

/// Event masking (Vol 4 Part E 7.3.1, 7.3.69, 7.8.1): the controller never sends what the host masked.
extension VirtualController {
    /// Sends `event` if the host's masks allow it. Command Complete/Status and Number Of Completed
    /// Packets cannot be masked.
    func sendEvent(_ event: HCIEvent) {
        guard isEnabled(event) else { return }
        emit(event.packet)
    }

    func isEnabled(_ event: HCIEvent) -> Bool {
        switch event {
        case .commandComplete, .commandStatus, .numberOfCompletedPackets:
            return true
        case let .le(subevent):
            return eventMask & HCISetEventMask.leMeta != 0 && isLESubeventEnabled(subevent.subeventCode)
        default:
            let code = event.code
            if code >= 0x40 { return code < 0x80 && eventMaskPage2 & (1 << UInt64(code - 0x40)) != 0 }
            return code >= 1 && eventMask & (1 << UInt64(code - 1)) != 0
        }
    }

    func isLESubeventEnabled(_ subevent: UInt8) -> Bool {
        subevent >= 1 && subevent <= 64 && leEventMask & (1 << UInt64(subevent - 1)) != 0
    }

    // MARK: - Event builders

    func commandComplete(_ opcode: HCIOpcode, _ returnParameters: [UInt8]) {
        answer(opcode, .commandComplete(HCICommandCompleteEvent(numHCICommandPackets: configuration.numHCICommandPackets,
                                                                opcode: opcode, returnParameters: returnParameters)))
    }

    func commandStatus(_ opcode: HCIOpcode, _ status: HCIStatus) {
        answer(opcode, .commandStatus(HCICommandStatusEvent(status: status, numHCICommandPackets: configuration.numHCICommandPackets,
                                                            opcode: opcode)))
    }

    /// Sends a command's answer, or keeps it back when a test asked to hold answers to that opcode
    /// (the command has taken effect; only the host does not know yet).
    private func answer(_ opcode: HCIOpcode, _ event: HCIEvent) {
        guard heldOpcodes.contains(opcode) else {
            sendEvent(event)
            return
        }
        heldAnswers.append(event)
        let waiters = heldAnswerWaiters
        heldAnswerWaiters = []
        waiters.forEach { $0.resume() }
    }

    /// Enhanced Connection Complete when the host enabled it, else the legacy event, else nothing.
    func sendConnectionComplete(status: HCIStatus, handle: UInt16, role: HCIRole, peer: DeviceAddress,
                                interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        let form: LEConnectionCompleteEvent.Form
        if isLESubeventEnabled(LESubeventCode.enhancedConnectionComplete) {
            form = .enhanced
        } else if isLESubeventEnabled(LESubeventCode.connectionComplete) {
            form = .legacy
        } else {
            return
        }
        // The legacy event can only express public or random peers; identity types map onto those.
        let peerForForm = form == .legacy
            ? DeviceAddress(peer.address, type: peer.type.isRandom ? .randomDevice : .publicDevice) : peer
        sendEvent(.le(.connectionComplete(LEConnectionCompleteEvent(
            form: form, status: status, handle: handle, role: role, peer: peerForForm,
            interval: interval, latency: latency, supervisionTimeout: supervisionTimeout))))
    }

    /// Encryption Change v2 (with key size) when Page 2 enables it, else v1.
    func sendEncryptionChange(status: HCIStatus, handle: UInt16, enabled: Bool) {
        let v2 = eventMaskPage2 & HCISetEventMaskPage2.encryptionChangeV2 != 0
        sendEvent(.encryptionChange(HCIEncryptionChangeEvent(
            status: status, handle: handle, encryptionEnabled: enabled ? 1 : 0,
            keySize: v2 ? (status.isSuccess && enabled ? 16 : 0) : nil)))
    }
}

import Dispatch
import HCI

/// ACL data path and buffer accounting (radio queue).
extension VirtualController {
    func receiveACL(_ body: ArraySlice<UInt8>) {
        let packet: HCIACLPacket
        do {
            packet = try HCIACLPacket(body: body)
        } catch {
            logger.error("malformed ACL packet from host dropped: \(error)")
            return
        }
        guard let link = links[packet.handle] else {
            logger.warning("ACL packet for unknown handle 0x\(String(packet.handle, radix: 16)) dropped")
            return
        }
        let inUse = buffered.values.reduce(0, +)
        guard inUse < Int(configuration.aclBufferCount), packet.data.count <= Int(configuration.aclBufferSize) else {
            // A real controller would overflow or corrupt memory here; count it so tests can fail loudly.
            creditViolationsValue += 1
            logger.error("""
                host flow-control violation on handle 0x\(String(packet.handle, radix: 16)): \(packet.data.count) bytes \
                with \(inUse)/\(configuration.aclBufferCount) buffers in use (max \(configuration.aclBufferSize) bytes); dropped
                """)
            return
        }
        buffered[packet.handle, default: 0] += 1
        maxBuffersInUseValue = max(maxBuffersInUseValue, inUse + 1)
        bufferWaiters.removeAll { waiter in
            guard waiter.handle == packet.handle else { return false }
            waiter.continuation.resume()
            return true
        }

        var reassembler = reassemblers[packet.handle] ?? L2CAPReassembler()
        let outcome = reassembler.append(packet.data, startsPDU: packet.boundary.startsPDU)
        reassemblers[packet.handle] = reassembler
        switch outcome {
        case .incomplete:
            break
        case let .complete(pdu):
            link.peer(of: self).link(link, received: pdu)
        case let .dropped(reason):
            logger.warning("ACL on handle 0x\(String(packet.handle, radix: 16)): \(reason)")
        }
        packetSent(handle: packet.handle)
    }

    /// The packet left the controller's buffer over the air; report it per the completion policy.
    private func packetSent(handle: UInt16) {
        switch configuration.completionPolicy {
        case .immediate:
            complete(handle: handle, count: 1)
        case let .batched(every: period):
            batchPending[handle, default: 0] += 1
            guard !batchFlushScheduled else { return }
            batchFlushScheduled = true
            // Microseconds: a 32-bit Int (armhf) holds only 2.1 s of nanoseconds.
            let microseconds = max(0, period.components.seconds * 1_000_000 + period.components.attoseconds / 1_000_000_000_000)
            let delay = DispatchTimeInterval.microseconds(Int(clamping: microseconds))
            radio.queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.flushBatch() }
        case .manual:
            break
        }
    }

    private func flushBatch() {
        batchFlushScheduled = false
        let entries = batchPending.sorted { $0.key < $1.key }.compactMap { handle, count -> HCINumberOfCompletedPacketsEvent.Entry? in
            guard count > 0, let held = buffered[handle], held > 0 else { return nil }
            let done = min(count, held)
            buffered[handle] = held - done
            return .init(handle: handle, completed: UInt16(done))
        }
        batchPending = [:]
        guard !entries.isEmpty else { return }
        sendEvent(.numberOfCompletedPackets(HCINumberOfCompletedPacketsEvent(entries: entries)))
    }

    /// Frees up to `count` buffers of `handle` and tells the host.
    func complete(handle: UInt16, count: Int) {
        guard count > 0, let held = buffered[handle], held > 0 else { return }
        let done = min(count, held)
        buffered[handle] = held - done
        if let pending = batchPending[handle] { batchPending[handle] = max(0, pending - done) }
        sendEvent(.numberOfCompletedPackets(HCINumberOfCompletedPacketsEvent(entries: [.init(handle: handle, completed: UInt16(done))])))
    }

    /// Delivers a PDU from the peer to the host, split into `inboundFragmentSize` fragments.
    func link(_ link: RadioLink, received pdu: [UInt8]) {
        let handle = link.handle(of: self)
        let size = configuration.inboundFragmentSize
        var offset = 0
        repeat {
            let end = min(offset + size, pdu.count)
            emit(HCIACLPacket.frame(handle: handle, boundary: offset == 0 ? .firstFlushable : .continuing, fragment: pdu[offset..<end]))
            offset = end
        } while offset < pdu.count
    }
}

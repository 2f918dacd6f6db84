import BLECore
import Foundation
import Glibc
import HCI
import Logging
import Testing

@testable import HCITransports

/// The HCI user channel on the real kernel: a `btvirt` controller in Debian's kernel under QEMU
/// (Tests/KernelVM, the `hci` group). Skipped unless BLESENSOR_TEST_HCI_USER_CHANNEL names the
/// controller's index, so `swift test` on a host without Bluetooth skips it.
///
/// What only the real socket shows: `hci_sock_sendmsg` refuses the MSG_BATCH flag that sendmmsg
/// puts on every datagram but the last, so a flush of two packets failed whole with EINVAL and
/// took the controller down; it refuses malformed packets (an event sent to the controller, a
/// packet under 4 bytes) with EINVAL too.
@Suite(.serialized, .enabled(if: KernelHCI.index != nil, "set BLESENSOR_TEST_HCI_USER_CHANNEL to a btvirt controller's index (Tests/KernelVM)"))
struct KernelHCIUserChannelTests {
    @Test func commandsFlushedTogetherAreAllWrittenAndAnswered() async throws {
        let (transport, recorder) = try await KernelHCI.open()
        let opcodes: [UInt16] = [0x0C03, 0x1001, 0x1009, 0x2002, 0x1003, 0x1002]
        try transport.combiningWrites { () throws(HCITransportError) in
            for opcode in opcodes { try transport.send(KernelHCI.command(opcode)) }
        }
        let events = await recorder.wait(timeout: KernelHCI.liveness) { events in
            KernelHCI.answered(events).count >= opcodes.count || KernelHCI.closed(events)
        }
        #expect(!KernelHCI.closed(events), "the link closed: \(recorder.closures)")
        #expect(KernelHCI.answered(events) == opcodes)
        await KernelHCI.close(transport, recorder)
    }

    @Test func aBurstOfCommandsIsWrittenInOrderWithoutLoss() async throws {
        let (transport, recorder) = try await KernelHCI.open()
        // Fewer than the socket's receive buffer holds answers for: the kernel drops what overflows it.
        let burst = 100
        for index in 0..<burst {
            try transport.send(KernelHCI.command(index.isMultiple(of: 2) ? 0x1009 : 0x1001))
        }
        let events = await recorder.wait(timeout: KernelHCI.liveness) { events in
            KernelHCI.answered(events).count >= burst || KernelHCI.closed(events)
        }
        #expect(!KernelHCI.closed(events), "the link closed: \(recorder.closures)")
        #expect(KernelHCI.answered(events) == (0..<burst).map { $0.isMultiple(of: 2) ? 0x1009 : 0x1001 })
        await KernelHCI.close(transport, recorder)
    }

    @Test func aPacketTheKernelRefusesIsReportedDroppedAndTheLinkGoesOn() async throws {
        let (transport, recorder) = try await KernelHCI.open()
        // An event is never host-to-controller traffic: hci_sock_sendmsg answers EINVAL.
        let event = try #require(HCIPacket(h4Bytes: [0x04, 0x0E, 0x04, 0x01, 0x09, 0x10, 0x00]))
        try transport.combiningWrites { () throws(HCITransportError) in
            try transport.send(KernelHCI.command(0x1009))
            try transport.send(event)
            try transport.send(KernelHCI.command(0x1001))
        }
        // Alone, it takes the direct path (nothing queued ahead of it).
        try transport.send(event)
        try transport.send(KernelHCI.command(0x1003))
        let events = await recorder.wait(timeout: KernelHCI.liveness) { events in
            KernelHCI.answered(events).count >= 3 && KernelHCI.refusals(events).count >= 2 || KernelHCI.closed(events)
        }
        #expect(!KernelHCI.closed(events), "the link closed: \(recorder.closures)")
        #expect(KernelHCI.answered(events) == [0x1009, 0x1001, 0x1003])
        let refusals = KernelHCI.refusals(events)
        #expect(refusals.count == 2)
        for refusal in refusals {
            guard case let .packetRefused(name, packet, _, code, _) = refusal else {
                Issue.record("unexpected refusal \(refusal)")
                continue
            }
            #expect(name == transport.name)
            #expect(code == EINVAL)
            #expect(packet.hasPrefix("event packet of 7 bytes"))
            #expect(refusal.description.hasPrefix("bug: "))
        }
        if case let .packetRefused(_, _, queued, _, _) = refusals.first {
            #expect(queued == 2, "the refused packet and the command behind it were queued")
        }
        await KernelHCI.close(transport, recorder)
    }

    /// With the smallest send buffer the kernel allows, a burst written in one flush outruns the
    /// kernel's transmit work: the write says EAGAIN, the rest waits for POLLOUT, nothing is lost.
    /// The burst is ACL data for a handle btvirt has no link on (it drops it unanswered, so the
    /// receive buffer cannot overflow), then a command whose answer shows everything before it
    /// went out.
    ///
    /// The kernel frees a packet's send-buffer charge in its transmit work (a high-priority
    /// kworker), which on an idle machine runs between two of our writes and keeps the buffer
    /// empty. So the hci group pins hci0's workqueue to one CPU and names it; the flush and the
    /// event loop's thread run there at SCHED_FIFO, and the kworker waits until the loop blocks in poll.
    @Test(.enabled(if: KernelHCI.transmitWorkCPU != nil, "set BLESENSOR_TEST_HCI_TX_WORK_CPU to the CPU hci0's workqueue is pinned to (Tests/KernelVM/guest/hci.sh)"))
    func aFullSendBufferQueuesTheRestAndLosesNothing() async throws {
        let index = try #require(KernelHCI.index)
        let cpu = try #require(KernelHCI.transmitWorkCPU)
        let takeover = AdapterTakeover(index: index, probe: BluetoothAdapterProbe(), clock: SystemClock.shared,
                                       logger: Logger(label: "kernel-hci-test"))
        let descriptor = try await takeover.take { false }
        var smallest: Int32 = 1  // raised by the kernel to its minimum (SOCK_MIN_SNDBUF)
        #expect(setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &smallest, socklen_t(MemoryLayout<Int32>.size)) == 0)
        let loop = try DescriptorEventLoop(descriptor: descriptor, name: "hci:\(index)", framing: .datagram, isSocket: false,
                                           endOfStreamMessage: "hci\(index) was removed")
        let recorder = EventRecorder()
        let data = HCIACLPacket.frame(handle: 0x0EFF, boundary: .firstNonFlushable, fragment: ArraySlice(repeating: 0xA5, count: 1000))
        // The flush writes on this thread until EAGAIN, then the loop thread (started here) goes on.
        // A dedicated thread: no thread of Swift's shared pool ever runs at SCHED_FIFO.
        let outcome = await DedicatedThread.run(name: "kernel-hci-fifo") { () -> (started: Bool, error: (any Error)?) in
            var started = false
            do {
                try RealtimeThread.running(onCPU: cpu) { () throws(HCITransportError) in
                    loop.start(handler: recorder.handler)
                    started = true
                    try loop.combiningWrites { () throws(HCITransportError) in
                        for _ in 0..<200 { try loop.send(data.h4Bytes) }
                        try loop.send(KernelHCI.command(0x1009).h4Bytes)
                    }
                }
                return (started, nil)
            } catch {
                return (started, error)
            }
        }
        if let error = outcome.error {
            // Close the socket here, or every later test finds hci0 taken.
            if outcome.started { await KernelHCI.stop(loop, recorder) } else { loop.discard() }
            throw error
        }
        _ = await recorder.wait(timeout: KernelHCI.liveness) { events in
            !KernelHCI.answered(events).isEmpty || KernelHCI.closed(events)
        }
        #expect(recorder.closures.isEmpty, "the link closed: \(recorder.closures)")
        #expect(KernelHCI.answered(recorder.events) == [0x1009])
        #expect(loop.timesBlocked > 0, "the kernel never answered EAGAIN: the full-socket path was not exercised")
        #expect(loop.queuedPackets == 0)
        await KernelHCI.stop(loop, recorder)
    }
}

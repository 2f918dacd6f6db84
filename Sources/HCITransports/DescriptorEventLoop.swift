#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import CBluetoothShim
import Foundation
import HCI
import Synchronization

/// One open descriptor to a controller and the event-loop thread that serves it in both directions.
///
/// Inbound: the loop polls the descriptor, reads, frames packets and hands each to the handler on
/// this thread. Outbound: `send` never blocks. With nothing queued it tries one non-blocking write
/// at once (no thread hop on the common path); otherwise, or when the descriptor is full, the packet
/// joins a bounded queue that the loop drains when the descriptor is writable: a stream many
/// packets per writev, datagrams one write each (the HCI socket refuses sendmmsg batches).
/// Packets produced while the loop delivers inbound packets (credits returned by Number Of
/// Completed Packets), or inside a caller's `combiningWrites` scope, are written together when
/// that batch or scope ends. Each wake-up reads everything pending (up to 16 datagrams in one
/// recvmmsg, or 64 KiB of a stream) and delivers it before writing what it produced.
///
/// After a read that only returned credits, the loop waits `creditReturnModeration` before reading
/// again (a send that finds the descriptor full, and `stop()`, still wake it at once), so a
/// notification stream's credits cost one wake-up per window rather than one per packet. It waits
/// only where more credits can gather (`creditsMayGather`): never with a single ACL buffer
/// (btvirt returns each credit alone, and the wait only delayed the refill), and with nothing
/// queued in the host only while credits come back within a window of each other.
///
/// A datagram the kernel refuses as malformed (EINVAL, EMSGSIZE) is a bug in the host: it is
/// dropped and reported as `.refused`, and the loop goes on; the host's timeouts recover the
/// command or the BLE link it belonged to.
///
/// The combining count is shared: while any scope is open, every thread's sends wait for the last
/// scope to end. Scopes are for short bursts (one timer tick's updates), never for waiting.
///
/// A queue that makes no progress for `stallTimeout` is reported once as `.stalled` (from the
/// clock's context): the controller stopped reading. `stop()` always ends the loop at once, pending
/// writes or not. The loop alone emits `.closed`, exactly once, and closes the descriptor only after
/// marking the loop released under the writer lock, so no write ever reaches a recycled descriptor.
///
/// `@unchecked Sendable`: the descriptor numbers are immutable; everything else is in `outbound`
/// (a `Mutex`) or the thread-safe pipes.
final class DescriptorEventLoop: @unchecked Sendable {
    enum Framing: Sendable {
        /// An H4 byte stream cut into packets by `H4StreamFramer` (UART, TCP).
        case stream
        /// One complete H4 packet per read and write (Linux HCI socket).
        case datagram
    }

    typealias Options = TransportOptions

    struct Outbound {
        var packets: [[UInt8]] = []
        var head = 0
        /// Bytes of `packets[head]` already written.
        var headOffset = 0
        /// Scopes (the loop delivering inbound packets, `combiningWrites` callers) whose sends
        /// are queued and written together when the last one ends.
        var combining = 0
        /// A write found the descriptor full; the loop waits for POLLOUT.
        var blocked = false
        var lastProgress = MonotonicInstant(nanoseconds: 0)
        var stallCheck: TimerHandle?
        var stallReported = false
        var released = false
        /// A write failed for good; the loop reports it as the reason the transport closed.
        var failure: HCITransportError?
        /// Packets the kernel refused, to be reported once the lock is released.
        var refusals: [HCITransportError] = []
        // Int64: at thousands of packets a second an Int32 (armhf) would overflow within weeks.
        var writeCalls: Int64 = 0
        var packetsWritten: Int64 = 0
        var packetsRefused: Int64 = 0
        /// Writes that found the descriptor full (EAGAIN, ENOBUFS) and left packets queued.
        var timesBlocked: Int64 = 0

        var count: Int { packets.count - head }

        var isEmpty: Bool { head == packets.count }

        mutating func takeRefusals() -> [HCITransportError] {
            guard !refusals.isEmpty else { return [] }
            defer { refusals = [] }
            return refusals
        }

        mutating func append(_ bytes: [UInt8], written: Int = 0) {
            if isEmpty { headOffset = written }
            packets.append(bytes)
        }

        mutating func dropHead() {
            packets[head] = []
            head += 1
            headOffset = 0
            if head == packets.count {
                packets.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64, head * 2 > packets.count {
                packets.removeFirst(head)
                head = 0
            }
        }
    }

    let name: String
    private let descriptor: Int32
    private let framing: Framing
    private let isSocket: Bool
    private let endOfStreamMessage: String
    private let options: Options
    private let stopPipe: WakePipe
    private let kickPipe: WakePipe
    private let outbound = Mutex(Outbound())
    /// The handler, for what is reported outside the loop thread (stalls, refused packets).
    private let reportHandler = Mutex<TransportEventHandler?>(nil)
    private let creditSource = Mutex<CreditSource?>(nil)
    private let creditWaits = Atomic<Int>(0)

    /// Takes ownership of `descriptor` (closes it on failure too). It must be non-blocking.
    init(descriptor: Int32, name: String, framing: Framing, isSocket: Bool, endOfStreamMessage: String,
         options: Options = Options()) throws(HCITransportError) {
        do {
            stopPipe = try WakePipe()
            kickPipe = try WakePipe()
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.name = name
        self.framing = framing
        self.isSocket = isSocket
        self.endOfStreamMessage = endOfStreamMessage
        self.options = options
    }

    /// Starts the loop thread; `handler` gets every packet, at most one `.stalled` per stall, then
    /// exactly one `.closed`.
    func start(handler: @escaping @Sendable (HCITransportEvent) -> Void) {
        reportHandler.withLock { $0 = TransportEventHandler(handler) }
        NamedThread.start("hci-io \(name)") { [self] in
            let reason = runLoop(handler: handler)
            release()
            handler(.closed(reason))
        }
    }

    /// Closes the descriptor of a loop that was never started (open was abandoned half way).
    func discard() {
        release()
    }

    /// Asks the loop to finish; it reports `.closed(nil)` unless a write already failed.
    func stop() {
        stopPipe.signal()
    }

    /// The host's ACL credits (see `HCITransport.setCreditSource`).
    func setCreditSource(_ source: CreditSource) {
        creditSource.withLock { $0 = source }
    }

    /// Whether waiting `window` for more credits can pay, after a read that returned only credits.
    /// Never with one buffer: the controller returns one credit at a time, so a wait would only
    /// delay the refill. Otherwise while PDUs wait in the host for credits, or while credits come
    /// back densely: within `window` of the previous credits-only read or of the end of the last
    /// wait (a fast timer, whose sends and their credits land in the window; skipping those waits
    /// cost a third more CPU per value at 2000 values a second against Bumble). Sparse credits with
    /// nothing waiting, as from a 50 Hz timer, gather nothing: the wait would be one more wake-up
    /// per value. Without a source (no host told us), the wait is kept.
    private func creditsMayGather(window: Duration, lastCredits: inout MonotonicInstant?) -> Bool {
        guard let credits = creditSource.withLock({ $0 })?.read() else { return true }
        guard credits.capacity >= 2 else { return false }
        let now = options.clock.now
        defer { lastCredits = now }
        if credits.waiting > 0 { return true }
        guard let previous = lastCredits else { return false }
        return now - previous <= window
    }

    // MARK: - Sending

    /// Queues `bytes` (one H4 packet); writes it at once when nothing is waiting.
    func send(_ bytes: [UInt8]) throws(HCITransportError) {
        var refusals: [HCITransportError] = []
        defer { report(refusals) }
        let wakeLoop = try outbound.withLock { out throws(HCITransportError) -> Bool in
            guard !out.released else { throw .notOpen(name) }
            if let failure = out.failure { throw failure }
            guard out.count < options.maxQueuedPackets else {
                throw .transmitQueueFull(name, limit: options.maxQueuedPackets)
            }
            guard out.isEmpty, out.combining == 0, !out.blocked else {
                out.append(bytes)
                return false
            }
            // Nothing ahead of it: try the write here, without waking the loop.
            switch writeDirect(bytes) {
            case let .written(count) where count == bytes.count:
                out.writeCalls += 1
                out.packetsWritten += 1
                return false
            case let .written(count):
                out.writeCalls += 1
                out.append(bytes, written: count)
                enterBlocked(&out)
                return true
            case .wouldBlock:
                out.append(bytes)
                enterBlocked(&out)
                return true
            case let .refused(code):
                refuse(bytes, errno: code, queued: 1, in: &out)
                refusals = out.takeRefusals()
                return false
            case let .failed(error):
                out.failure = error
                return true
            }
        }
        if wakeLoop { kickPipe.signal() }
    }

    /// Drops queued ACL packets of `handle` not yet started.
    func discardQueuedACL(handle: UInt16) {
        outbound.withLock { out in
            discard(&out) { packet in
                packet.count >= 3 && packet[0] == HCIPacketType.acl.rawValue
                    && (UInt16(packet[1]) | UInt16(packet[2]) << 8) & 0x0FFF == handle
            }
        }
    }

    /// Drops every queued packet not yet started.
    func discardQueuedPackets() {
        outbound.withLock { out in discard(&out) { _ in true } }
    }

    private func discard(_ out: inout Outbound, where shouldDrop: ([UInt8]) -> Bool) {
        guard !out.isEmpty else { return }
        // A packet partly written must be finished, or the stream loses its framing.
        let keepHead = out.headOffset > 0
        let firstCandidate = keepHead ? out.head + 1 : out.head
        guard firstCandidate < out.packets.count else { return }
        let kept = out.packets[firstCandidate...].filter { !shouldDrop($0) }
        out.packets.removeSubrange(firstCandidate...)
        out.packets.append(contentsOf: kept)
        if out.isEmpty {
            out.packets.removeAll(keepingCapacity: true)
            out.head = 0
            out.headOffset = 0
            out.blocked = false
        }
    }

    /// Packets waiting to be written (for tests and statistics).
    var queuedPackets: Int { outbound.withLock { $0.count } }
    /// System calls that wrote packets, and packets written, so far.
    var writeStatistics: (calls: Int64, packets: Int64) { outbound.withLock { ($0.writeCalls, $0.packetsWritten) } }
    /// Packets the kernel refused as malformed and that were dropped.
    var packetsRefused: Int64 { outbound.withLock { $0.packetsRefused } }
    /// How often the loop waited for credits to gather before reading again.
    var timesWaitedForCredits: Int { creditWaits.load(ordering: .relaxed) }
    /// How often a write found the descriptor full.
    var timesBlocked: Int64 { outbound.withLock { $0.timesBlocked } }

    // MARK: - Loop thread

    private func runLoop(handler: @Sendable (HCITransportEvent) -> Void) -> HCITransportError? {
        var reader = InboundReader(framing: framing)
        defer { reader.deallocate() }
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopPipe.readDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: kickPipe.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        // poll counts whole milliseconds: a shorter, non-zero window rounds up rather than to none.
        let window = options.creditReturnModeration
        let moderation = window > .zero ? Int32(clamping: (window + .nanoseconds(999_999)).wholeMilliseconds) : 0
        var quiet = Array(fds[1...])
        var onlyCredits = false
        // When credits last came, or the last wait for them ended: how densely they come back.
        var lastCredits: MonotonicInstant?
        while true {
            let (blocked, failure) = outbound.withLock { ($0.blocked, $0.failure) }
            if let failure { return failure }
            if onlyCredits, moderation > 0, !blocked,
               creditsMayGather(window: .milliseconds(moderation), lastCredits: &lastCredits) {
                // The last read only returned credits: let more gather before reading again.
                // Kicks and stop still wake this at once.
                creditWaits.add(1, ordering: .relaxed)
                for index in quiet.indices { quiet[index].revents = 0 }
                _ = SystemCall.poll(&quiet, timeout: moderation)
                // Measured from here, the wait itself never makes credits look dense.
                lastCredits = options.clock.now
                onlyCredits = false
                continue
            }
            onlyCredits = false
            fds[0].events = Int16(POLLIN) | (blocked ? Int16(POLLOUT) : 0)
            for index in fds.indices { fds[index].revents = 0 }
            guard SystemCall.poll(&fds, timeout: -1) >= 0 else {
                return SystemCall.failure("poll on \(name)", errno: errno)
            }
            if fds[1].revents != 0 { return nil }
            if fds[2].revents != 0 { kickPipe.drain() }
            let events = fds[0].revents
            if events & Int16(POLLNVAL) != 0 {
                return SystemCall.failure("poll on \(name)", errno: EBADF)
            }
            if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                if let reason = readAndDeliver(&reader, onlyCredits: &onlyCredits, handler: handler) {
                    return reason
                }
            } else if events & Int16(POLLOUT) != 0 || blocked {
                flush()
            }
        }
    }

    /// Where the loop reads into: one 64 KiB chunk of a stream, or up to 16 datagrams of at most a
    /// maximum-size packet each. Allocated, not zero-filled, so only the pages the kernel writes
    /// become resident.
    private struct InboundReader {
        static let datagramsPerRead = 16
        let framing: Framing
        var framer = H4StreamFramer()
        let slot = H4StreamFramer.maximumPacketSize
        let slots: Int
        let buffer: UnsafeMutablePointer<UInt8>
        var lengths: [Int]

        init(framing: Framing) {
            self.framing = framing
            slots = framing == .datagram ? Self.datagramsPerRead : 1
            buffer = .allocate(capacity: slot * slots)
            lengths = Array(repeating: 0, count: slots)
        }

        func deallocate() { buffer.deallocate() }

        /// Reads what is pending: the number of chunks (datagrams, or 1 for a stream), 0 at the end
        /// of a stream, or -1 with errno.
        mutating func receive(from descriptor: Int32) -> Int {
            switch framing {
            case .stream:
                let count = read(descriptor, buffer, slot)
                if count > 0 { lengths[0] = count }
                return count < 0 ? -1 : (count == 0 ? 0 : 1)
            case .datagram:
                return lengths.withUnsafeMutableBufferPointer { lengths in
                    Int(bls_receive_datagrams(descriptor, buffer, slot, Int32(slots), lengths.baseAddress))
                }
            }
        }

        func chunk(_ index: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: buffer + index * slot, count: min(lengths[index], slot))
        }
    }

    /// One read of everything pending, every packet in it to the handler, then one flush of what
    /// they queued. `onlyCredits` says whether the read held Number Of Completed Packets events and
    /// nothing else (no other packet, no start of one).
    private func readAndDeliver(_ reader: inout InboundReader, onlyCredits: inout Bool,
                                handler: @Sendable (HCITransportEvent) -> Void) -> HCITransportError? {
        let chunks = reader.receive(from: descriptor)
        if chunks == 0 { return .disconnected(endOfStreamMessage) }
        if chunks < 0 {
            let code = errno
            if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { return nil }
            if framing == .datagram, SystemCall.meansControllerGone(code) {
                return .disconnected("\(endOfStreamMessage) (reading \(name): \(SystemCall.message(code)), errno \(code))")
            }
            return .disconnected("reading \(name) failed: \(SystemCall.message(code)) (errno \(code))")
        }
        var delivered = 0, credits = 0
        func deliver(_ packet: HCIPacket) {
            delivered += 1
            if Self.isCreditReturn(packet) { credits += 1 }
            handler(.packet(packet))
        }
        let reason = combiningWrites { () -> HCITransportError? in
            for index in 0..<chunks {
                let chunk = reader.chunk(index)
                switch framing {
                case .stream:
                    do throws(HCITransportError) {
                        try reader.framer.feed(chunk, deliver: deliver)
                    } catch {
                        return error
                    }
                case .datagram:
                    guard reader.lengths[index] <= reader.slot else {
                        return .framingLost("\(name) delivered a datagram longer than \(reader.slot) bytes; reopen the transport")
                    }
                    guard let packet = HCIPacket(h4Bytes: Array(chunk)) else {
                        let indicator = chunk.first.map { "0x" + [$0].hexString } ?? "nothing"
                        return .framingLost(
                            "\(name) delivered a packet with unknown indicator \(indicator) (expected 0x01-0x05); reopen the transport"
                        )
                    }
                    deliver(packet)
                }
            }
            return nil
        }
        // A partial packet is never "only credits": its rest is read without waiting.
        onlyCredits = delivered > 0 && credits == delivered && reader.framer.bufferedByteCount == 0
        return reason
    }

    /// An HCI Number Of Completed Packets event (0x13).
    private static func isCreditReturn(_ packet: HCIPacket) -> Bool {
        packet.h4Bytes.count >= 2 && packet.h4Bytes[0] == HCIPacketType.event.rawValue && packet.h4Bytes[1] == 0x13
    }

    /// Runs `body`; what it sends is queued and written in as few system calls as possible when it
    /// returns (a timer tick that updates several values, a burst of notifications), on this thread.
    func combiningWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        outbound.withLock { $0.combining += 1 }
        defer { endCombining() }
        return try body()
    }

    private func endCombining() {
        let (wakeLoop, refusals) = outbound.withLock { out -> (Bool, [HCITransportError]) in
            out.combining -= 1
            guard out.combining == 0 else { return (false, []) }
            let wasBlocked = out.blocked
            flush(&out)
            // A write that blocked or failed here is the loop's to wait for or report.
            return ((out.blocked && !wasBlocked) || out.failure != nil, out.takeRefusals())
        }
        report(refusals)
        if wakeLoop { kickPipe.signal() }
    }

    /// Writes queued packets while the descriptor takes them.
    private func flush() {
        report(outbound.withLock { out in
            flush(&out)
            return out.takeRefusals()
        })
    }

    private func flush(_ out: inout Outbound) {
        guard !out.released, out.failure == nil else { return }
        var progressed = false
        while !out.isEmpty {
            let outcome = framing == .stream ? writeStream(&out) : writeDatagrams(&out)
            switch outcome {
            case .progress:
                progressed = true
            case .wouldBlock:
                if progressed { noteProgress(&out) }
                enterBlocked(&out)
                return
            case let .failed(error):
                out.failure = error
                return
            }
        }
        out.blocked = false
        out.stallReported = false
    }

    private enum FlushOutcome {
        case progress
        case wouldBlock
        case failed(HCITransportError)
    }

    private static let maxBuffersPerCall = 64

    /// One writev of up to 64 queued packets (the head from its written offset).
    private func writeStream(_ out: inout Outbound) -> FlushOutcome {
        let end = min(out.packets.count, out.head + Self.maxBuffersPerCall)
        let written: Int = withBuffers(out.packets[out.head..<end], headOffset: out.headOffset) { iovecs in
            bls_write_vector(descriptor, iovecs.baseAddress, Int32(iovecs.count), isSocket ? 1 : 0)
        }
        guard written >= 0 else { return failure(errno) }
        out.writeCalls += 1
        var remaining = written
        while remaining > 0, !out.isEmpty {
            let left = out.packets[out.head].count - out.headOffset
            if remaining >= left {
                remaining -= left
                out.packetsWritten += 1
                out.dropHead()
            } else {
                out.headOffset += remaining
                remaining = 0
            }
        }
        return written > 0 ? .progress : .wouldBlock
    }

    /// Queued datagrams, one write each. Not sendmmsg: Linux marks every message of a batch but
    /// the last MSG_BATCH, and hci_sock_sendmsg refuses any flag it does not know with EINVAL, so a
    /// batch of two or more packets on the HCI user channel fails whole (net/socket.c,
    /// net/bluetooth/hci_sock.c).
    private func writeDatagrams(_ out: inout Outbound) -> FlushOutcome {
        var progressed = false
        while !out.isEmpty {
            switch writeDirect(out.packets[out.head]) {
            case .written:
                out.writeCalls += 1
                out.packetsWritten += 1
                out.dropHead()
            case .wouldBlock:
                return progressed ? .progress : .wouldBlock
            case let .refused(code):
                refuse(out.packets[out.head], errno: code, queued: out.count, in: &out)
                out.dropHead()
            case let .failed(error):
                return .failed(error)
            }
            progressed = true
        }
        return .progress
    }

    /// Counts a packet the kernel refused and keeps what it was for the report, so the log says
    /// enough to find the bug.
    private func refuse(_ packet: [UInt8], errno code: Int32, queued: Int, in out: inout Outbound) {
        let kind = packet.first.flatMap(HCIPacketType.init(rawValue:)).map { "\($0)" } ?? "unknown"
        out.packetsRefused += 1
        out.refusals.append(.packetRefused(
            name, packet: "\(kind) packet of \(packet.count) bytes [\(packet.prefix(8).hexString)\(packet.count > 8 ? "…" : "")]",
            queued: queued, errno: code, message: SystemCall.message(code)))
    }

    /// Hands refused packets to the handler (never under the writer lock).
    private func report(_ refusals: [HCITransportError]) {
        guard !refusals.isEmpty, let handler = reportHandler.withLock({ $0 }) else { return }
        refusals.forEach { handler.call(.refused($0)) }
    }

    private func failure(_ code: Int32) -> FlushOutcome {
        switch code {
        case EINTR, EAGAIN, EWOULDBLOCK, ENOBUFS:
            return .wouldBlock
        case _ where SystemCall.meansControllerGone(code):
            return .failed(.disconnected("writing to \(name) failed: \(SystemCall.message(code)) (errno \(code))"))
        default:
            return .failed(SystemCall.failure("write to \(name)", errno: code))
        }
    }

    /// Runs `body` with an iovec per packet; each array is pinned by its own `withUnsafeBytes`
    /// for the whole call.
    private func withBuffers<R>(_ packets: ArraySlice<[UInt8]>, headOffset: Int, _ body: (UnsafeBufferPointer<iovec>) -> R) -> R {
        var iovecs: [iovec] = []
        iovecs.reserveCapacity(packets.count)
        func collect(_ index: Int) -> R {
            guard index < packets.endIndex else { return iovecs.withUnsafeBufferPointer(body) }
            return packets[index].withUnsafeBytes { raw in
                let offset = index == packets.startIndex ? headOffset : 0
                iovecs.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress.map { $0 + offset }),
                                    iov_len: raw.count - offset))
                return collect(index + 1)
            }
        }
        return collect(packets.startIndex)
    }

    private enum DirectWrite {
        case written(Int)
        case wouldBlock
        /// The kernel refused this datagram as malformed (EINVAL, EMSGSIZE): a host bug, not a lost controller.
        case refused(Int32)
        case failed(HCITransportError)
    }

    private func writeDirect(_ bytes: [UInt8]) -> DirectWrite {
        while true {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return bls_send(descriptor, base, raw.count, isSocket ? 1 : 0)
            }
            if written >= 0 {
                if framing == .datagram && written != bytes.count {
                    return .failed(.systemCallFailed(operation: "write to \(name)", errno: EMSGSIZE,
                                                     message: "the kernel accepted \(written) of \(bytes.count) bytes of one packet"))
                }
                return written == 0 ? .wouldBlock : .written(written)
            }
            let code = errno
            if code == EINTR { continue }
            if framing == .datagram, code == EINVAL || code == EMSGSIZE { return .refused(code) }
            if case let .failed(error) = failure(code) { return .failed(error) }
            return .wouldBlock
        }
    }

    // MARK: - Stall detection

    private func enterBlocked(_ out: inout Outbound) {
        if !out.blocked {
            out.blocked = true
            out.timesBlocked += 1
            out.lastProgress = options.clock.now
        }
        armStallCheck(&out, at: out.lastProgress + options.stallTimeout)
    }

    private func noteProgress(_ out: inout Outbound) {
        out.lastProgress = options.clock.now
        out.stallReported = false
    }

    private func armStallCheck(_ out: inout Outbound, at deadline: MonotonicInstant) {
        guard out.stallCheck == nil, !out.released else { return }
        out.stallCheck = options.clock.schedule(at: deadline) { [weak self] in self?.checkStall() }
    }

    private func checkStall() {
        let stalled: HCITransportError? = outbound.withLock { out in
            out.stallCheck = nil
            guard out.blocked, !out.released, !out.isEmpty else { return nil }
            let waited = options.clock.now - out.lastProgress
            guard waited >= options.stallTimeout else {
                armStallCheck(&out, at: out.lastProgress + options.stallTimeout)
                return nil
            }
            guard !out.stallReported else { return nil }
            out.stallReported = true
            // Checked again after the next progress, so a second stall is reported too.
            return .stalled(name, milliseconds: waited.wholeMilliseconds)
        }
        guard let stalled, let handler = reportHandler.withLock({ $0 }) else { return }
        handler.call(.stalled(stalled))
    }

    /// Marks the loop released under the writer lock (no write starts after it), drops what is
    /// queued, then closes the descriptors.
    private func release() {
        stopPipe.signal()
        let check = outbound.withLock { out -> TimerHandle? in
            out.released = true
            out.packets.removeAll()
            out.head = 0
            return out.stallCheck.take()
        }
        check?.cancel()
        closeDescriptor(descriptor)
        stopPipe.close()
        kickPipe.close()
    }
}

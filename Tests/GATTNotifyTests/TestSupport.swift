import BLECore
import HCI
import Synchronization
@testable import GATTNotify

/// Links named by handle, per engine, so tests speak of connections as a controller does.
/// `addConnection` on a handle makes a new link there (a reused handle is a new link).
enum HandleLinks {
    static let registry = Mutex<[ObjectIdentifier: [UInt16: Link]]>([:])

    static func make(_ handle: UInt16) -> Link {
        Link(handle: handle, role: .peripheral, peer: DeviceAddress(.zero, type: .randomDevice),
             parameters: Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 500))
    }

    static func link(_ engine: NotificationEngine, _ handle: UInt16) -> Link {
        registry.withLock { registry in
            if let link = registry[ObjectIdentifier(engine)]?[handle] { return link }
            let link = make(handle)
            registry[ObjectIdentifier(engine), default: [:]][handle] = link
            return link
        }
    }

    static func fresh(_ engine: NotificationEngine, _ handle: UInt16) -> Link {
        let link = make(handle)
        registry.withLock { $0[ObjectIdentifier(engine), default: [:]][handle] = link }
        return link
    }
}

/// The handle-based calls the tests were written with, over the link-based API.
extension NotificationEngine {
    func link(_ handle: UInt16) -> Link { HandleLinks.link(self, handle) }

    func addConnection(_ handle: UInt16, mtu: Int = 23, limits: QueueLimits? = nil) throws(NotificationEngineError) {
        let link = HandleLinks.fresh(self, handle)
        link.setMTU(mtu)
        try addLink(link, limits: limits)
    }

    @discardableResult
    func update(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy = .latestValue, to handle: UInt16) -> Bool {
        update(value, characteristic: characteristic, policy: policy, to: link(handle).id)
    }

    @discardableResult
    func update(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy = .latestValue, to handles: [UInt16]) -> Bool {
        update(value, characteristic: characteristic, policy: policy, to: handles.map { link($0).id })
    }

    func updateWaitingForRoom(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy = .latestValue,
                              to handles: [UInt16]) async throws(CancellationError) {
        let links = handles.map { link($0).id }
        if case .indication = policy {
            try await updateWaitingForRoom(value, characteristic: characteristic, indicating: links)
        } else {
            try await updateWaitingForRoom(value, characteristic: characteristic, notifying: links, policy: policy)
        }
    }

    @discardableResult
    func removeConnection(_ handle: UInt16) -> [AbandonedIndication] { removeLink(link(handle).id) }

    /// `true` when an indication was outstanding.
    @discardableResult
    func confirmationReceived(on handle: UInt16) -> Bool { confirmationReceived(on: link(handle).id) != nil }

    func setMultipleHandleValueNotifications(_ enabled: Bool, on handle: UInt16) {
        setMultipleHandleValueNotifications(enabled, on: link(handle).id)
    }
}

extension NotificationStatistics {
    /// The open connection on `handle`.
    subscript(connection handle: UInt16) -> Connection? {
        connections.values.first { $0.handle == handle }
    }
}

/// A sink that accepts a per-connection allowance of PDUs, then refuses until given more.
final class FakeSink: NotificationSink {
    struct State {
        var allowance: [UInt16: Int] = [:]
        var defaultAllowance: Int
        var sent: [(connection: UInt16, pdu: [UInt8])] = []
        var refusals = 0
    }

    let state: Mutex<State>
    /// Runs inside `trySend` before deciding (to test re-entrancy).
    let duringSend: Mutex<(@Sendable (UInt16) -> Void)?> = Mutex(nil)

    init(allowance: Int = .max) {
        state = Mutex(State(defaultAllowance: allowance))
    }

    func trySend(_ l2capPDU: [UInt8], on link: Link) -> Bool {
        let connection = link.handle
        if let hook = duringSend.withLock({ $0 }) { hook(connection) }
        return state.withLock { state in
            let left = state.allowance[connection] ?? state.defaultAllowance
            guard left > 0 else {
                state.refusals += 1
                return false
            }
            state.allowance[connection] = left == .max ? left : left - 1
            state.sent.append((connection, l2capPDU))
            return true
        }
    }

    func allow(_ count: Int, on connection: UInt16) {
        state.withLock { $0.allowance[connection] = count }
    }

    func sent(on connection: UInt16) -> [[UInt8]] {
        state.withLock { $0.sent.filter { $0.connection == connection }.map(\.pdu) }
    }

    var order: [UInt16] { state.withLock { $0.sent.map(\.connection) } }
    var refusals: Int { state.withLock { $0.refusals } }
}

/// Records engine events.
final class EventLog: Sendable {
    let events = Mutex<[NotificationEvent]>([])
    func record(_ event: NotificationEvent) { events.withLock { $0.append(event) } }
    var all: [NotificationEvent] { events.withLock { $0 } }
    var readyCount: Int {
        all.filter { if case .readyToUpdateSubscribers = $0 { return true } else { return false } }.count
    }
    /// Links named in ready events, in order.
    var readyLinks: [LinkID] {
        all.flatMap { event -> [LinkID] in
            if case let .readyToUpdateSubscribers(links) = event { return links } else { return [] }
        }
    }
}

struct DecodedPDU: Equatable {
    var opcode: UInt8
    var handle: UInt16
    var value: [UInt8]
}

enum PDUDecodeError: Error { case malformed([UInt8]) }

/// Checks the L2CAP basic header (length, ATT channel) and splits the ATT PDU.
func decode(_ pdu: [UInt8]) throws -> DecodedPDU {
    guard pdu.count >= 7 else { throw PDUDecodeError.malformed(pdu) }
    let length = Int(pdu[0]) | Int(pdu[1]) << 8
    let channel = UInt16(pdu[2]) | UInt16(pdu[3]) << 8
    guard length == pdu.count - 4, channel == 0x0004 else { throw PDUDecodeError.malformed(pdu) }
    return DecodedPDU(opcode: pdu[4], handle: UInt16(pdu[5]) | UInt16(pdu[6]) << 8, value: Array(pdu[7...]))
}

/// Heart Rate Measurement (0x2A37) with an 8-bit rate and RR-intervals (flags bit 4).
func heartRateMeasurement(bpm: UInt8, rrIntervals: [UInt16]) -> [UInt8] {
    [0x10, bpm] + rrIntervals.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
}

func rrIntervals(of measurement: [UInt8]) -> [UInt16] {
    stride(from: 2, to: measurement.count - 1, by: 2).map { UInt16(measurement[$0]) | UInt16(measurement[$0 + 1]) << 8 }
}

/// The profile's merge: newest rate, RR-intervals of both in order; nil when they would not fit.
let mergeRRIntervals: MergeHook = { queued, incoming, maximumLength in
    guard queued.count >= 2, incoming.count >= 2, queued[0] & 0x10 != 0, incoming[0] & 0x10 != 0 else { return nil }
    let merged = Array(incoming[0..<2]) + queued[2...] + incoming[2...]
    return merged.count <= maximumLength ? merged : nil
}

/// FIFO notifications: never combine.
let keepEveryValue: MergeHook = { _, _, _ in nil }

func limits(_ entries: Int, _ bytes: Int = 1 << 20) throws -> QueueLimits {
    try QueueLimits(maximumEntries: entries, maximumBytes: bytes)
}

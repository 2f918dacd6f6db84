import ATT
import HCI
import Synchronization

/// One link's inbound ATT PDUs, bounded, waiting for that link's worker.
///
/// ATT is sequential (Core Vol 3 Part F 3.3.2): a client sends no request while one is outstanding.
/// A client that does gets no second slot: the extra request is dropped (and counted), so a flood
/// of requests costs nothing. Commands (Write Command, Signed Write Command, anything else without a
/// response) queue up to `maxCommands` and are dropped and counted beyond.
final class LinkInbound: Sendable {
    struct Item: Sendable {
        let bytes: [UInt8]
        /// The link's security when the PDU arrived: permission checks use it, so a PDU is judged
        /// by the encryption in force when it was received, in order with Encryption Change.
        let security: LinkSecurity
        let isRequest: Bool
    }

    enum Offer { case queued, droppedRequest, droppedCommand }

    struct Counters: Sendable, Equatable {
        // Int64: a flooding central could push a 32-bit Int (armhf) past 2^31.
        var requestsDropped: Int64 = 0
        var commandsDropped: Int64 = 0
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        /// A request is queued or being answered.
        var requestOutstanding = false
        var commandsQueued = 0
        var waiter: CheckedContinuation<Item?, Never>?
        var finished = false
        var counters = Counters()
    }

    private let state = Mutex(State())
    let maxCommands: Int

    init(maxCommands: Int) {
        self.maxCommands = maxCommands
    }

    var counters: Counters { state.withLock { $0.counters } }

    func offer(_ bytes: [UInt8], security: LinkSecurity) -> Offer {
        let isRequest = bytes.first.map { ATTPDU.answersAsRequest(ATTOpcode(rawValue: $0)) } ?? false
        let (outcome, handoff): (Offer, (CheckedContinuation<Item?, Never>, Item)?) = state.withLock { state in
            guard !state.finished else { return (.queued, nil) }
            if isRequest {
                guard !state.requestOutstanding else {
                    state.counters.requestsDropped += 1
                    return (.droppedRequest, nil)
                }
                state.requestOutstanding = true
            } else {
                guard state.commandsQueued < maxCommands else {
                    state.counters.commandsDropped += 1
                    return (.droppedCommand, nil)
                }
            }
            let item = Item(bytes: bytes, security: security, isRequest: isRequest)
            if let waiter = state.waiter.take() { return (.queued, (waiter, item)) }
            if !isRequest { state.commandsQueued += 1 }
            state.items.append(item)
            return (.queued, nil)
        }
        if let (waiter, item) = handoff { waiter.resume(returning: item) }
        return outcome
    }

    /// The next PDU; nil once finished.
    func next() async -> Item? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
            let item: Item?? = state.withLock { state in
                if state.head < state.items.count {
                    let item = state.items[state.head]
                    state.head += 1
                    if state.head == state.items.count {
                        state.items.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    if !item.isRequest { state.commandsQueued -= 1 }
                    return .some(item)
                }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let item { continuation.resume(returning: item) }
        }
    }

    /// The worker answered the outstanding request; the client may send the next one.
    func requestAnswered() {
        state.withLock { $0.requestOutstanding = false }
    }

    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            state.finished = true
            state.items.removeAll()
            state.head = 0
            return state.waiter.take()
        }
        waiter?.resume(returning: nil)
    }
}

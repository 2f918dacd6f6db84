import HCI
import Synchronization

/// An in-memory transport: records what the host sends and lets the test inject inbound events.
final class FakeTransport: HCITransport, Sendable {
    private struct State {
        var handler: (@Sendable (HCITransportEvent) -> Void)?
        var sent: [HCIPacket] = []
    }

    let name = "fake"
    private let state = Mutex(State())

    var sent: [HCIPacket] { state.withLock { $0.sent } }

    func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        state.withLock { $0.handler = handler }
    }

    func send(_ packet: HCIPacket) throws(HCITransportError) {
        try state.withLock { state throws(HCITransportError) in
            guard state.handler != nil else { throw .notOpen(name) }
            state.sent.append(packet)
        }
    }

    func close() {
        deliver(.closed(nil))
    }

    func deliver(_ event: HCITransportEvent) {
        let handler = state.withLock { state in
            defer { if case .closed = event { state.handler = nil } }
            return state.handler
        }
        handler?(event)
    }
}

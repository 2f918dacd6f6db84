import HCI
import Synchronization
import TestSupport

/// Collects a transport's events and lets a test await them with a deadline, so a broken
/// transport fails the test instead of hanging it.
final class EventRecorder: Sendable {
    private struct Waiter {
        let id: Int
        let isSatisfied: @Sendable ([HCITransportEvent]) -> Bool
        let continuation: CheckedContinuation<[HCITransportEvent], Never>
    }

    private struct State {
        var events: [HCITransportEvent] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    var handler: @Sendable (HCITransportEvent) -> Void {
        { [self] event in record(event) }
    }

    var events: [HCITransportEvent] { state.withLock { $0.events } }

    var packets: [HCIPacket] {
        events.compactMap { event in
            if case let .packet(packet) = event { return packet }
            return nil
        }
    }

    var closures: [HCITransportError?] {
        events.compactMap { event in
            if case let .closed(error) = event { return .some(error) }
            return nil
        }
    }

    private func record(_ event: HCITransportEvent) {
        let ready = state.withLock { state -> [(CheckedContinuation<[HCITransportEvent], Never>, [HCITransportEvent])] in
            state.events.append(event)
            let events = state.events
            let satisfied = state.waiters.filter { $0.isSatisfied(events) }
            state.waiters.removeAll { $0.isSatisfied(events) }
            return satisfied.map { ($0.continuation, events) }
        }
        for (continuation, events) in ready { continuation.resume(returning: events) }
    }

    /// Returns the events once `condition` holds, or whatever arrived when `timeout` expires.
    func wait(
        timeout: Duration = .seconds(10), until condition: @escaping @Sendable ([HCITransportEvent]) -> Bool
    ) async -> [HCITransportEvent] {
        await withCheckedContinuation { continuation in
            let id = state.withLock { state -> Int? in
                if condition(state.events) { return nil }
                state.nextID += 1
                state.waiters.append(Waiter(id: state.nextID, isSatisfied: condition, continuation: continuation))
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: events)
                return
            }
            Task { [self] in
                try? await Task.sleep(for: timeout.scaledForTests)
                let expired = state.withLock { state -> (CheckedContinuation<[HCITransportEvent], Never>, [HCITransportEvent])? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return (state.waiters.remove(at: index).continuation, state.events)
                }
                if let (continuation, events) = expired { continuation.resume(returning: events) }
            }
        }
    }

    func waitForPackets(_ count: Int, timeout: Duration = .seconds(10)) async -> [HCIPacket] {
        _ = await wait(timeout: timeout) { events in
            events.count { if case .packet = $0 { return true } else { return false } } >= count
        }
        return packets
    }

    /// Waits for the first `.closed`; `nil` if none arrived in time.
    func waitForClosed(timeout: Duration = .seconds(10)) async -> HCITransportError?? {
        _ = await wait(timeout: timeout) { events in
            events.contains { if case .closed = $0 { return true } else { return false } }
        }
        return closures.first
    }
}

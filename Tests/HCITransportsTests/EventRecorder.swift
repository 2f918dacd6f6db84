import HCI
import TestSupport

/// Collects a transport's events and lets a test await them with a deadline, so a broken
/// transport fails the test instead of hanging it.
final class EventRecorder: Sendable {
    private let recorder = Recorder<HCITransportEvent>()

    var handler: @Sendable (HCITransportEvent) -> Void {
        { [recorder] event in recorder.append(event) }
    }

    var events: [HCITransportEvent] { recorder.all }

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

    /// Returns the events once `condition` holds, or whatever arrived when `timeout` expires.
    func wait(
        timeout: Duration = .seconds(10), until condition: @escaping @Sendable ([HCITransportEvent]) -> Bool
    ) async -> [HCITransportEvent] {
        await recorder.wait(timeout: timeout, until: condition)
        return events
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

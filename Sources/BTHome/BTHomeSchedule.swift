/// When a BTHome packet goes out. Receivers drop packets whose packet id jumps by 64 or more within
/// 4 s (bthome-ble), every new packet spends an encryption counter (and, per block, a write to the
/// state directory), and the controller advertises only every ~150 ms anyway: so at most one packet
/// per `minimumInterval`, a new one only when the objects changed, and the same values again with a
/// new id and counter after `keepAlive` so receivers see the device is still there.
///
/// Times are offsets on a monotonic clock, passed in (tests give their own).
public struct BTHomeSchedule: Sendable {
    public enum Decision: Equatable, Sendable {
        /// Build and send a packet (a new packet id and counter).
        case send
        /// Nothing new: the advertisement keeps the last packet.
        case keep
        /// Something may be new, but not before this time.
        case wait(until: Duration)
    }

    public let minimumInterval: Duration
    public let keepAlive: Duration
    private var lastObjects: [UInt8]? = nil
    private var lastSent: Duration? = nil

    public init(minimumInterval: Duration = .seconds(1), keepAlive: Duration = .seconds(60)) {
        self.minimumInterval = minimumInterval
        self.keepAlive = keepAlive
    }

    /// What to do at `now` with `objects` (the encoded measurements, the packet id not among them).
    public func decide(_ objects: [UInt8], now: Duration) -> Decision {
        guard let lastSent else { return .send }
        if now < lastSent + minimumInterval { return objects == lastObjects ? .keep : .wait(until: lastSent + minimumInterval) }
        return objects != lastObjects || now >= lastSent + keepAlive ? .send : .keep
    }

    /// Records that `objects` went out at `now`.
    public mutating func sent(_ objects: [UInt8], at now: Duration) {
        lastObjects = objects
        lastSent = now
    }
}

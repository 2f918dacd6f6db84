/// Apple's discovery guidance for accessories: advertise every 20 ms for the first 30 s (after
/// advertising starts and after a disconnection), then at a slower interval.
public struct FastAdvertising: Sendable, Equatable {
    public var interval: Duration
    /// Zero turns the fast phase off.
    public var period: Duration

    public static let apple = FastAdvertising(interval: .milliseconds(20), period: .seconds(30))

    public init(interval: Duration, period: Duration) {
        self.interval = interval
        self.period = period
    }
}

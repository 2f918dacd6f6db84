/// The connection parameters a peripheral asks its centrals for, with an L2CAP Connection Parameter
/// Update Request some seconds after they connect. Apple's accessory design guidelines make this the
/// accessory's job (iOS ignores the Peripheral Preferred Connection Parameters characteristic), and
/// on a Raspberry Pi, whose radio is shared with Wi-Fi, a supervision timeout of a few hundred
/// milliseconds loses links.
public struct PreferredConnectionParameters: Sendable, Equatable {
    public var intervalMin: Duration
    public var intervalMax: Duration
    /// Connection events the peripheral may skip.
    public var latency: Int
    public var supervisionTimeout: Duration

    /// 30–60 ms, latency 4, 5 s: every Apple rule holds (60 ms × 5 = 300 ms ≤ 2 s; × 3 = 900 ms < 5 s)
    /// and a notification still leaves within 300 ms.
    public static let standard = PreferredConnectionParameters(intervalMin: .milliseconds(30), intervalMax: .milliseconds(60),
                                                               latency: 4, supervisionTimeout: .seconds(5))

    public init(intervalMin: Duration, intervalMax: Duration, latency: Int, supervisionTimeout: Duration) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// In the units the request carries: 1.25 ms intervals, 10 ms timeout (Vol 3 Part A 4.20).
    public var intervalMinUnits: UInt16 { UInt16(clamping: Int((intervalMin.milliseconds / 1.25).rounded())) }
    public var intervalMaxUnits: UInt16 { UInt16(clamping: Int((intervalMax.milliseconds / 1.25).rounded())) }
    public var latencyValue: UInt16 { UInt16(clamping: latency) }
    public var supervisionTimeoutUnits: UInt16 { UInt16(clamping: Int((supervisionTimeout.milliseconds / 10).rounded())) }

    /// What the Core spec forbids (Vol 3 Part A 4.20, Vol 6 Part B 4.5.2): a central must reject these.
    public var specViolations: [String] {
        var found: [String] = []
        let minimum = intervalMin.milliseconds, maximum = intervalMax.milliseconds
        let timeout = supervisionTimeout.milliseconds
        if !(7.5...4000).contains(minimum) || !(7.5...4000).contains(maximum) { found.append("the interval must be 7.5 ms … 4 s") }
        if minimum > maximum { found.append("the minimum interval is above the maximum") }
        if minimum.remainder(dividingBy: 1.25) != 0 || maximum.remainder(dividingBy: 1.25) != 0 {
            found.append("intervals are multiples of 1.25 ms")
        }
        if !(0...499).contains(latency) { found.append("the latency must be 0 … 499") }
        if !(100...32_000).contains(timeout) { found.append("the supervision timeout must be 100 ms … 32 s") }
        if timeout.remainder(dividingBy: 10) != 0 { found.append("the supervision timeout is a multiple of 10 ms") }
        if timeout <= Double(1 + latency) * maximum * 2 {
            found.append("the supervision timeout must exceed (1 + latency) × maximum interval × 2")
        }
        return found
    }

    /// Apple's rules for accessories (Accessory Design Guidelines, connection parameters): iOS refuses
    /// a request that breaks one.
    public var appleRuleViolations: [String] {
        var found: [String] = []
        let minimum = intervalMin.milliseconds, maximum = intervalMax.milliseconds
        let timeout = supervisionTimeout.milliseconds
        if minimum < 15 || minimum.remainder(dividingBy: 15) != 0 { found.append("the minimum interval is at least 15 ms and a multiple of 15 ms") }
        if !(minimum + 15 <= maximum || (minimum == 15 && maximum == 15)) { found.append("the maximum interval is at least the minimum + 15 ms") }
        if latency > 30 { found.append("the latency is at most 30") }
        if !(2000...6000).contains(timeout) { found.append("the supervision timeout is 2 s … 6 s") }
        if maximum * Double(latency + 1) > 2000 { found.append("maximum interval × (latency + 1) is at most 2 s") }
        if !(maximum * Double(latency + 1) * 3 < timeout) { found.append("maximum interval × (latency + 1) × 3 is below the supervision timeout") }
        return found
    }

    /// Whether a link's current parameters (interval in 1.25 ms units, timeout in 10 ms units) already
    /// give what we would ask for: no request is needed.
    public func isSatisfied(interval: UInt16, latency currentLatency: UInt16, supervisionTimeout timeout: UInt16) -> Bool {
        (intervalMinUnits...max(intervalMinUnits, intervalMaxUnits)).contains(interval)
            && currentLatency <= latencyValue && timeout >= supervisionTimeoutUnits
    }
}

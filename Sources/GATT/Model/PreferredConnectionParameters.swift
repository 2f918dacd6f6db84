/// Peripheral Preferred Connection Parameters (GAP characteristic 0x2A04, Core Vol 3 Part C 12.3).
/// Intervals in 1.25 ms units, timeout in 10 ms units; 0xFFFF means "no specific value".
public struct PreferredConnectionParameters: Hashable, Sendable {
    public var minimumInterval: UInt16
    public var maximumInterval: UInt16
    public var peripheralLatency: UInt16
    public var supervisionTimeout: UInt16

    public static let noSpecificValue: UInt16 = 0xFFFF
    public static let noPreference = PreferredConnectionParameters(
        minimumInterval: noSpecificValue, maximumInterval: noSpecificValue,
        peripheralLatency: 0, supervisionTimeout: noSpecificValue)

    public init(minimumInterval: UInt16, maximumInterval: UInt16, peripheralLatency: UInt16, supervisionTimeout: UInt16) {
        self.minimumInterval = minimumInterval
        self.maximumInterval = maximumInterval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
    }

    /// The 8-octet characteristic value, each field little-endian.
    public var littleEndianBytes: [UInt8] {
        [minimumInterval, maximumInterval, peripheralLatency, supervisionTimeout].flatMap {
            [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)]
        }
    }

    /// Why the parameters are outside the ranges of Core Vol 6 Part B 4.5.1 / Vol 4 Part E 7.8.12, or nil.
    var problem: String? {
        let noValue = Self.noSpecificValue
        if minimumInterval != noValue, !(0x0006...0x0C80).contains(minimumInterval) {
            return "minimum interval \(minimumInterval) is outside 6...3200 (7.5 ms to 4 s)"
        }
        if maximumInterval != noValue, !(0x0006...0x0C80).contains(maximumInterval) {
            return "maximum interval \(maximumInterval) is outside 6...3200 (7.5 ms to 4 s)"
        }
        if minimumInterval != noValue, maximumInterval != noValue, minimumInterval > maximumInterval {
            return "minimum interval \(minimumInterval) is above maximum interval \(maximumInterval)"
        }
        if peripheralLatency > 499 { return "peripheral latency \(peripheralLatency) is above 499" }
        if supervisionTimeout != noValue, !(0x000A...0x0C80).contains(supervisionTimeout) {
            return "supervision timeout \(supervisionTimeout) is outside 10...3200 (100 ms to 32 s)"
        }
        return nil
    }
}

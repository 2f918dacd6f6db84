extension FixedWidthInteger {
    /// Double → integer that never traps, for values that come from users, waveforms or hardware:
    /// fractions truncate toward zero like `init(_:)`, out-of-range values (±infinity included) clamp
    /// to the type's bounds, and NaN becomes `nanValue`.
    @inlinable
    public init(saturating value: Double, nan nanValue: Self = 0) {
        if value.isNaN {
            self = nanValue
        } else if value <= Double(Self.min) {
            self = .min
        } else if value >= Double(Self.max) {
            // Double(max) rounds up to a power of two for 64-bit types, which is already out of range.
            self = .max
        } else {
            self.init(value)
        }
    }
}

extension UInt64 {
    /// Addition that stops at UInt64.max instead of wrapping (a far-future deadline stays in the future).
    @inlinable
    public func saturatingAdd(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

extension Duration {
    /// Whole milliseconds, rounded toward zero (timeouts in logs, poll(2) arguments).
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Milliseconds with their fraction (intervals converted to controller units).
    public var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

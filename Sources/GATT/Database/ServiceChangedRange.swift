/// The handle range a Service Changed indication (characteristic 0x2A05) announces when the
/// database is replaced: the span of every attribute that differs, widened to whole service groups
/// so the client rediscovers complete services.
public enum ServiceChangedRange {
    /// nil when both databases present the same attributes to a client.
    public static func affected(from old: AttributeDatabase, to new: AttributeDatabase) -> ClosedRange<UInt16>? {
        let last = max(old.lastHandle, new.lastHandle)
        guard last > 0 else { return nil }
        // The hash value follows from the other attributes; comparing it would always drag the GATT
        // service into the range.
        let ignored: Set<UInt16> = [old.valueHandle(for: .databaseHash), new.valueHandle(for: .databaseHash)]
            .reduce(into: []) { set, handle in if let handle { set.insert(handle) } }
        var lower: UInt16?
        var upper: UInt16?
        for handle in 1...last where !ignored.contains(handle) {
            if old.attribute(at: handle) != new.attribute(at: handle) {
                if lower == nil { lower = handle }
                upper = handle
            }
        }
        guard var start = lower, var end = upper else { return nil }
        for database in [old, new] {
            if let group = database.serviceGroup(containing: start) { start = min(start, group.startHandle) }
            if let group = database.serviceGroup(containing: end) { end = max(end, group.endGroupHandle) }
        }
        return start...end
    }

    /// The Service Changed characteristic value: start and end handle, little-endian.
    public static func value(for range: ClosedRange<UInt16>) -> [UInt8] {
        let start = range.lowerBound, end = range.upperBound
        return [UInt8(truncatingIfNeeded: start), UInt8(truncatingIfNeeded: start >> 8),
                UInt8(truncatingIfNeeded: end), UInt8(truncatingIfNeeded: end >> 8)]
    }
}

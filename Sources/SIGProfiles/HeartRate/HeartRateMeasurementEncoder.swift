import BLECore

/// The bytes of an encoded Heart Rate Measurement and the RR-intervals that did not fit.
public struct HeartRateMeasurementEncoding: Hashable, Sendable {
    public let bytes: [UInt8]
    /// The newest RR-intervals, oldest first, that did not fit: the Heart Rate Service sends the
    /// oldest first and the rest in the following notifications, so the caller carries these over.
    public let remainingRRIntervals: [UInt16]
}

extension HeartRateMeasurement {
    /// Encodes the measurement into at most `maxLength` bytes (ATT_MTU − 3 for a notification).
    /// The heart rate goes out as uint8 when it fits unless `usesUInt16Format` forces uint16; energy
    /// expended saturates at 0xFFFF kJ; when the RR-intervals do not all fit, the oldest go in this
    /// value and the others are returned for the next one.
    public func encoded(maxLength: Int = 20) throws(SIGEncodingError) -> HeartRateMeasurementEncoding {
        let wide = usesUInt16Format || heartRate > 0xFF
        var flags: UInt8 = sensorContact.rawValue << Flag.contactShift
        if wide { flags |= Flag.uint16Format }
        if energyExpended != nil { flags |= Flag.energyExpended }
        let fixedLength = 1 + (wide ? 2 : 1) + (energyExpended == nil ? 0 : 2)
        guard fixedLength <= maxLength else {
            throw .doesNotFit(value: "Heart Rate Measurement", needed: fixedLength, maxLength: maxLength)
        }
        let room = (maxLength - fixedLength) / 2
        let kept = rrIntervals.prefix(room)
        if !kept.isEmpty { flags |= Flag.rrIntervals }

        var writer = ByteWriter(capacity: fixedLength + kept.count * 2)
        writer.append(flags)
        if wide { writer.append(heartRate) } else { writer.append(UInt8(heartRate)) }
        if let energy = energyExpended { writer.append(UInt16(min(energy, 0xFFFF))) }
        for interval in kept { writer.append(interval) }
        return HeartRateMeasurementEncoding(bytes: writer.bytes, remainingRRIntervals: Array(rrIntervals.dropFirst(kept.count)))
    }

    /// Folds a queued, unsent measurement into a newer one for the notification queue's merge hook:
    /// the newer heart rate, contact and energy with the RR-intervals of both, oldest first. Nil when
    /// either is not a valid measurement or the intervals would not all fit in `maxLength`, so the
    /// queue keeps both values and no interval is lost.
    public static func merging(queued: [UInt8], incoming: [UInt8], maxLength: Int) -> [UInt8]? {
        guard let older = try? HeartRateMeasurement(decoding: queued),
              var newer = try? HeartRateMeasurement(decoding: incoming) else { return nil }
        newer.rrIntervals = older.rrIntervals + newer.rrIntervals
        guard let merged = try? newer.encoded(maxLength: maxLength), merged.remainingRRIntervals.isEmpty else { return nil }
        return merged.bytes
    }
}

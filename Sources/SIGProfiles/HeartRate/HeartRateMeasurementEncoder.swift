import BLECore

/// The bytes of an encoded Heart Rate Measurement and how many RR-intervals had to be left out.
public struct HeartRateMeasurementEncoding: Hashable, Sendable {
    public let bytes: [UInt8]
    /// Oldest RR-intervals dropped to fit `maxLength`; the caller should not resend them (the service
    /// says newest values win when a notification cannot carry all).
    public let droppedRRIntervals: Int
}

extension HeartRateMeasurement {
    /// Encodes the measurement into at most `maxLength` bytes (ATT_MTU − 3 for a notification).
    /// The heart rate goes out as uint8 when it fits unless `usesUInt16Format` forces uint16; energy
    /// expended saturates at 0xFFFF kJ; when the RR-intervals do not all fit, the oldest are dropped.
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
        let kept = rrIntervals.suffix(room)
        if !kept.isEmpty { flags |= Flag.rrIntervals }

        var writer = ByteWriter(capacity: fixedLength + kept.count * 2)
        writer.append(flags)
        if wide { writer.append(heartRate) } else { writer.append(UInt8(heartRate)) }
        if let energy = energyExpended { writer.append(UInt16(min(energy, 0xFFFF))) }
        for interval in kept { writer.append(interval) }
        return HeartRateMeasurementEncoding(bytes: writer.bytes, droppedRRIntervals: rrIntervals.count - kept.count)
    }
}

import Foundation

/// A measurement kept for a bonded peer that was disconnected when it was taken.
public struct StoredMeasurement: Sendable, Equatable {
    /// Increases across all peers and is never reused, so acknowledging an old sequence cannot remove newer data.
    public var sequence: Int64
    public var valueHandle: UInt16
    public var value: [UInt8]
    public var takenAt: Date

    public init(sequence: Int64, valueHandle: UInt16, value: [UInt8], takenAt: Date) {
        self.sequence = sequence
        self.valueHandle = valueHandle
        self.value = value
        self.takenAt = takenAt
    }
}

public struct PendingMeasurements: Sendable, Equatable {
    /// Oldest first.
    public var measurements: [StoredMeasurement]
    /// Dropped (oldest first) because the bound was reached, since the last acknowledgement.
    public var dropped: Int

    public init(measurements: [StoredMeasurement], dropped: Int) {
        self.measurements = measurements
        self.dropped = dropped
    }

    public static let none = PendingMeasurements(measurements: [], dropped: 0)
}

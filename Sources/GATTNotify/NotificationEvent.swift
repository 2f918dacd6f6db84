/// An indication that will never be confirmed because its connection went away.
public struct AbandonedIndication: Sendable, Equatable {
    public var characteristic: UInt16
    /// The value as it was (or would have been) sent, truncated to the connection's MTU − 3.
    public var value: [UInt8]
    /// `true` when it was handed to the transport and was waiting for its confirmation.
    public var wasSent: Bool

    public init(characteristic: UInt16, value: [UInt8], wasSent: Bool) {
        self.characteristic = characteristic
        self.value = value
        self.wasSent = wasSent
    }
}

/// What the notification engine reports to the layer above (the peripheral manager).
public enum NotificationEvent: Sendable, Equatable {
    /// An `update` returned `false` earlier and every queue that refused has room again: retry now
    /// (CoreBluetooth's `peripheralManagerIsReady(toUpdateSubscribers:)`). Sent once per refusal episode.
    case readyToUpdateSubscribers
    /// The central confirmed the outstanding indication of this characteristic.
    case indicationConfirmed(connection: UInt16, characteristic: UInt16)
    /// The connection was removed with indications queued or awaiting confirmation.
    case indicationsAbandoned(connection: UInt16, [AbandonedIndication])
}

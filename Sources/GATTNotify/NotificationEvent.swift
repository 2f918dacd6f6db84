import HCI

/// An indication that will never be confirmed because its link went away (or its client turned
/// indications off before it was sent).
public struct AbandonedIndication: Sendable, Equatable {
    public var characteristic: UInt16
    /// The value as it was (or would have been) sent, truncated to the link's MTU − 3.
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
    /// A link that refused an update (`update` returned `false`) has room again, or closed: retry
    /// (CoreBluetooth's `peripheralManagerIsReady(toUpdateSubscribers:)`). Lists every link that can
    /// take updates now, so an app can go on with those while a stalled one is still full. Sent
    /// once per refusal episode of each link.
    case readyToUpdateSubscribers([LinkID])
    /// The central confirmed the outstanding indication of this characteristic.
    case indicationConfirmed(link: LinkID, characteristic: UInt16)
    /// The link was removed with indications queued or awaiting confirmation, or its client turned
    /// indications off with some still queued.
    case indicationsAbandoned(link: LinkID, [AbandonedIndication])
    /// The outstanding indication was not confirmed within the ATT transaction timeout (Core Vol 3
    /// Part F 3.3.3): no further ATT PDU may be sent on the bearer, so the link must be dropped.
    case indicationTimedOut(Link)
}

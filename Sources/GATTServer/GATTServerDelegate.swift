import ATT
import GATT
import HCI

/// The application side of the GATT server: dynamic values, writes, subscriptions, confirmations.
public protocol GATTServerDelegate: AnyObject, Sendable {
    /// The full current value; the server serves Read / Read Blob / Read By Type / Read Multiple from it.
    /// For a long value read with Read Blob, the server keeps the snapshot from the first read
    /// (offset 0 or first blob) per link and attribute until a read at offset 0 or a write.
    func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode>
    /// Called after the server validated handles, permissions, lengths (≤ 512) and offsets.
    /// For `.command` and `.signedCommand` the result is ignored (no response on the air).
    func write(_ items: [GATTWriteItem], link: Link, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode>
    /// A client's CCCD for a characteristic changed (notifications/indications bits).
    func subscriptionChanged(link: Link, characteristic: CharacteristicID, configuration: ClientConfiguration)
    /// A Handle Value Confirmation arrived on the link; returns the value handle of the indication
    /// it confirmed, or nil when none was outstanding. Called at once, never queued behind requests.
    func indicationConfirmed(link: Link) -> UInt16?
    /// The ATT MTU of a link changed after Exchange MTU (`link.mtu` already has it).
    func mtuChanged(link: Link, mtu: Int)
    /// The client's Client Supported Features or change-awareness changed (see `GATTServer.clientState(of:)`).
    func clientStateChanged(link: Link)
}

extension GATTServerDelegate {
    /// Most delegates keep no client state beyond the link.
    public func clientStateChanged(link: Link) {}
}

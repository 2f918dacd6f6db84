import ATT
import GATT

/// The application side of the GATT server: dynamic values, writes and subscription changes.
public protocol GATTServerDelegate: AnyObject, Sendable {
    /// The full current value; the server serves Read / Read Blob / Read By Type / Read Multiple from it.
    /// For a long value read with Read Blob, the server keeps the snapshot from the first read
    /// (offset 0 or first blob) per connection and attribute until a read at offset 0 or a write.
    func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode>
    /// Called after the server validated handles, permissions, lengths (≤ 512) and offsets.
    /// For `.command` and `.signedCommand` the result is ignored (no response on the air).
    func write(_ items: [GATTWriteItem], connection: UInt16, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode>
    /// A client's CCCD for a characteristic changed (notifications/indications bits).
    func subscriptionChanged(connection: UInt16, characteristic: CharacteristicID, configuration: ClientConfiguration)
    /// Security of the link right now (called on every permission check).
    func security(of connection: UInt16) -> LinkSecurity
    /// A Handle Value Confirmation arrived on the connection.
    func indicationConfirmed(connection: UInt16)
    /// The ATT MTU of a connection changed after Exchange MTU.
    func mtuChanged(connection: UInt16, mtu: Int)
}

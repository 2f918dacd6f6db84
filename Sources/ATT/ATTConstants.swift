/// Sizes the Attribute Protocol fixes (Core spec v5.4 Vol 3 Part F 3.2.8, 3.2.9, 5.1).
public enum ATTConstants {
    /// ATT_MTU on an LE bearer until an Exchange MTU completes.
    public static let defaultLEMTU = 23
    /// The largest ATT_MTU this stack negotiates: a 512-byte value plus the 5-byte Prepare Write header.
    public static let maximumMTU = 517
    /// The longest attribute value the spec allows.
    public static let maximumAttributeValueLength = 512

    /// The ATT_MTU both sides use after an Exchange MTU: the smaller Rx MTU, or the default when a side
    /// (incorrectly) offered less than the default (3.4.2.2).
    public static func negotiatedMTU(clientRxMTU: UInt16, serverRxMTU: UInt16) -> Int {
        max(defaultLEMTU, Int(min(clientRxMTU, serverRxMTU)))
    }

    /// An MTU clamped to what a bearer can legally use, so builders never compute negative room.
    static func clamped(_ mtu: Int) -> Int {
        min(max(mtu, defaultLEMTU), maximumMTU)
    }
}

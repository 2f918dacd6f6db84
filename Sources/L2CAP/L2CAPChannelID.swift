/// Fixed channel identifiers on an LE-U logical link (Core spec Vol 3 Part A 2.1).
public enum L2CAPChannelID {
    public static let attribute: UInt16 = 0x0004
    public static let leSignaling: UInt16 = 0x0005
    public static let securityManager: UInt16 = 0x0006
}

/// Event codes the host understands (Core spec Vol 4 Part E 7.7).
public enum HCIEventCode {
    public static let disconnectionComplete: UInt8 = 0x05
    public static let encryptionChange: UInt8 = 0x08
    public static let readRemoteVersionInformationComplete: UInt8 = 0x0C
    public static let commandComplete: UInt8 = 0x0E
    public static let commandStatus: UInt8 = 0x0F
    public static let hardwareError: UInt8 = 0x10
    public static let numberOfCompletedPackets: UInt8 = 0x13
    public static let dataBufferOverflow: UInt8 = 0x1A
    public static let encryptionKeyRefreshComplete: UInt8 = 0x30
    public static let leMeta: UInt8 = 0x3E
    public static let encryptionChangeV2: UInt8 = 0x59
}

/// LE Meta subevent codes (Core spec Vol 4 Part E 7.7.65).
public enum LESubeventCode {
    public static let connectionComplete: UInt8 = 0x01
    public static let advertisingReport: UInt8 = 0x02
    public static let connectionUpdateComplete: UInt8 = 0x03
    public static let readRemoteFeaturesComplete: UInt8 = 0x04
    public static let longTermKeyRequest: UInt8 = 0x05
    public static let remoteConnectionParameterRequest: UInt8 = 0x06
    public static let dataLengthChange: UInt8 = 0x07
    public static let enhancedConnectionComplete: UInt8 = 0x0A
    public static let enhancedConnectionCompleteV2: UInt8 = 0x29
}

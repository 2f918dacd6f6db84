/// A command opcode: OGF in the upper 6 bits, OCF in the lower 10 (Core spec Vol 4 Part E 5.4.1).
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(ogf: UInt8, ocf: UInt16) { rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x3FF) }

    public var ogf: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 10) }
    public var ocf: UInt16 { rawValue & 0x3FF }

    public var description: String {
        let name = HCIOpcode.names[self] ?? "opcode"
        return "\(name) (0x\(String(rawValue, radix: 16)))"
    }

    // Link control (OGF 0x01)
    public static let disconnect = HCIOpcode(ogf: 0x01, ocf: 0x0006)
    public static let readRemoteVersionInformation = HCIOpcode(ogf: 0x01, ocf: 0x001D)
    // Controller and baseband (OGF 0x03)
    public static let setEventMask = HCIOpcode(ogf: 0x03, ocf: 0x0001)
    public static let reset = HCIOpcode(ogf: 0x03, ocf: 0x0003)
    public static let setEventMaskPage2 = HCIOpcode(ogf: 0x03, ocf: 0x0063)
    public static let writeLEHostSupport = HCIOpcode(ogf: 0x03, ocf: 0x006D)
    // Informational (OGF 0x04)
    public static let readLocalVersionInformation = HCIOpcode(ogf: 0x04, ocf: 0x0001)
    public static let readLocalSupportedCommands = HCIOpcode(ogf: 0x04, ocf: 0x0002)
    public static let readLocalSupportedFeatures = HCIOpcode(ogf: 0x04, ocf: 0x0003)
    public static let readBufferSize = HCIOpcode(ogf: 0x04, ocf: 0x0005)
    public static let readBDADDR = HCIOpcode(ogf: 0x04, ocf: 0x0009)
    // LE controller (OGF 0x08)
    public static let leSetEventMask = HCIOpcode(ogf: 0x08, ocf: 0x0001)
    public static let leReadBufferSize = HCIOpcode(ogf: 0x08, ocf: 0x0002)
    public static let leReadLocalSupportedFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0003)
    public static let leSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0005)
    public static let leSetAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    public static let leReadAdvertisingChannelTxPower = HCIOpcode(ogf: 0x08, ocf: 0x0007)
    public static let leSetAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
    public static let leSetScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    public static let leSetAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)
    public static let leSetScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    public static let leSetScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)
    public static let leCreateConnection = HCIOpcode(ogf: 0x08, ocf: 0x000D)
    public static let leCreateConnectionCancel = HCIOpcode(ogf: 0x08, ocf: 0x000E)
    public static let leConnectionUpdate = HCIOpcode(ogf: 0x08, ocf: 0x0013)
    public static let leEnableEncryption = HCIOpcode(ogf: 0x08, ocf: 0x0019)
    public static let leLongTermKeyRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x001A)
    public static let leLongTermKeyRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x001B)
    public static let leReadSupportedStates = HCIOpcode(ogf: 0x08, ocf: 0x001C)
    public static let leSetDataLength = HCIOpcode(ogf: 0x08, ocf: 0x0022)
    public static let leReadSuggestedDefaultDataLength = HCIOpcode(ogf: 0x08, ocf: 0x0023)
    public static let leWriteSuggestedDefaultDataLength = HCIOpcode(ogf: 0x08, ocf: 0x0024)
    public static let leReadMaximumDataLength = HCIOpcode(ogf: 0x08, ocf: 0x002F)
    public static let leReadBufferSizeV2 = HCIOpcode(ogf: 0x08, ocf: 0x0060)

    static let names: [HCIOpcode: String] = [
        .disconnect: "Disconnect",
        .readRemoteVersionInformation: "Read Remote Version Information",
        .setEventMask: "Set Event Mask",
        .reset: "Reset",
        .setEventMaskPage2: "Set Event Mask Page 2",
        .writeLEHostSupport: "Write LE Host Support",
        .readLocalVersionInformation: "Read Local Version Information",
        .readLocalSupportedCommands: "Read Local Supported Commands",
        .readLocalSupportedFeatures: "Read Local Supported Features",
        .readBufferSize: "Read Buffer Size",
        .readBDADDR: "Read BD_ADDR",
        .leSetEventMask: "LE Set Event Mask",
        .leReadBufferSize: "LE Read Buffer Size",
        .leReadLocalSupportedFeatures: "LE Read Local Supported Features",
        .leSetRandomAddress: "LE Set Random Address",
        .leSetAdvertisingParameters: "LE Set Advertising Parameters",
        .leReadAdvertisingChannelTxPower: "LE Read Advertising Physical Channel Tx Power",
        .leSetAdvertisingData: "LE Set Advertising Data",
        .leSetScanResponseData: "LE Set Scan Response Data",
        .leSetAdvertisingEnable: "LE Set Advertising Enable",
        .leSetScanParameters: "LE Set Scan Parameters",
        .leSetScanEnable: "LE Set Scan Enable",
        .leCreateConnection: "LE Create Connection",
        .leCreateConnectionCancel: "LE Create Connection Cancel",
        .leConnectionUpdate: "LE Connection Update",
        .leEnableEncryption: "LE Enable Encryption",
        .leLongTermKeyRequestReply: "LE Long Term Key Request Reply",
        .leLongTermKeyRequestNegativeReply: "LE Long Term Key Request Negative Reply",
        .leReadSupportedStates: "LE Read Supported States",
        .leRemoteConnectionParameterRequestReply: "LE Remote Connection Parameter Request Reply",
        .leRemoteConnectionParameterRequestNegativeReply: "LE Remote Connection Parameter Request Negative Reply",
        .leSetDataLength: "LE Set Data Length",
        .leReadSuggestedDefaultDataLength: "LE Read Suggested Default Data Length",
        .leWriteSuggestedDefaultDataLength: "LE Write Suggested Default Data Length",
        .leReadMaximumDataLength: "LE Read Maximum Data Length",
        .leReadBufferSizeV2: "LE Read Buffer Size v2",
    ]
}

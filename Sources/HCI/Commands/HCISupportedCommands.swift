/// The 64-octet Supported_Commands bit field (Vol 4 Part E 6.27). The host only sends optional
/// commands the controller declares, so an older controller is never sent something it cannot answer.
public struct HCISupportedCommands: Sendable, Equatable {
    public private(set) var octets: [UInt8]

    public init(octets: [UInt8]) {
        self.octets = Array((octets + [UInt8](repeating: 0, count: 64)).prefix(64))
    }

    public static let none = HCISupportedCommands(octets: [])

    /// The (octet, bit) position of each command we may use.
    public static let positions: [HCIOpcode: (octet: Int, bit: Int)] = [
        .disconnect: (0, 5),
        .readRemoteVersionInformation: (2, 7),
        .setEventMask: (5, 6),
        .reset: (5, 7),
        .readLocalVersionInformation: (14, 3),
        .readLocalSupportedFeatures: (14, 5),
        .readBufferSize: (14, 7),
        .readBDADDR: (15, 1),
        .setEventMaskPage2: (22, 2),
        .writeLEHostSupport: (24, 6),
        .leSetEventMask: (25, 0),
        .leReadBufferSize: (25, 1),
        .leReadLocalSupportedFeatures: (25, 2),
        .leSetRandomAddress: (25, 4),
        .leSetAdvertisingParameters: (25, 5),
        .leReadAdvertisingChannelTxPower: (25, 6),
        .leSetAdvertisingData: (25, 7),
        .leSetScanResponseData: (26, 0),
        .leSetAdvertisingEnable: (26, 1),
        .leSetScanParameters: (26, 2),
        .leSetScanEnable: (26, 3),
        .leCreateConnection: (26, 4),
        .leCreateConnectionCancel: (26, 5),
        .leConnectionUpdate: (27, 2),
        .leEnableEncryption: (28, 0),
        .leLongTermKeyRequestReply: (28, 1),
        .leLongTermKeyRequestNegativeReply: (28, 2),
        .leReadSupportedStates: (28, 3),
        .leRemoteConnectionParameterRequestReply: (33, 4),
        .leRemoteConnectionParameterRequestNegativeReply: (33, 5),
        .leSetDataLength: (33, 6),
        .leReadSuggestedDefaultDataLength: (33, 7),
        .leWriteSuggestedDefaultDataLength: (34, 0),
        .leReadMaximumDataLength: (35, 3),
        .leReadBufferSizeV2: (41, 5),
    ]

    public func supports(_ opcode: HCIOpcode) -> Bool {
        guard let position = Self.positions[opcode] else { return false }
        return octets[position.octet] & (1 << position.bit) != 0
    }

    public mutating func insert(_ opcode: HCIOpcode) {
        guard let position = Self.positions[opcode] else { return }
        octets[position.octet] |= 1 << position.bit
    }

    public init(supporting opcodes: [HCIOpcode]) {
        self.init(octets: [])
        for opcode in opcodes { insert(opcode) }
    }
}

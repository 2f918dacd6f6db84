import BLECore

/// What bring-up learned about the controller.
public struct ControllerInfo: Sendable, Equatable {
    public var version: HCILocalVersionInformation
    public var supportedCommands: HCISupportedCommands
    public var lmpFeatures: UInt64
    public var leFeatures: UInt64
    public var publicAddress: BluetoothAddress
    /// Largest ACL data payload per packet the controller accepts.
    public var aclBufferSize: Int
    /// How many ACL packets the controller can hold; the host never has more outstanding.
    public var aclBufferCount: Int
    public var suggestedDataLength: LEDataLength?
    /// The LE event mask the controller accepted.
    public var leEventMask: UInt64
    /// nil when the controller does not report its state combinations (or refused to).
    public var leStates: LESupportedStates?
    /// The legacy advertising power in dBm (Vol 4 Part E 7.8.6); nil when the controller did not say.
    public var advertisingTxPower: Int8?
    /// What bring-up turned off, in the order it found out.
    public var limitations: [ControllerLimitation]

    public init(version: HCILocalVersionInformation, supportedCommands: HCISupportedCommands, lmpFeatures: UInt64,
                leFeatures: UInt64, publicAddress: BluetoothAddress, aclBufferSize: Int, aclBufferCount: Int,
                suggestedDataLength: LEDataLength? = nil, leEventMask: UInt64 = HCILESetEventMask.hostDefault.mask,
                leStates: LESupportedStates? = nil, advertisingTxPower: Int8? = nil,
                limitations: [ControllerLimitation] = []) {
        self.version = version
        self.supportedCommands = supportedCommands
        self.lmpFeatures = lmpFeatures
        self.leFeatures = leFeatures
        self.publicAddress = publicAddress
        self.aclBufferSize = aclBufferSize
        self.aclBufferCount = aclBufferCount
        self.suggestedDataLength = suggestedDataLength
        self.leEventMask = leEventMask
        self.leStates = leStates
        self.advertisingTxPower = advertisingTxPower
        self.limitations = limitations
    }

    public func supports(_ opcode: HCIOpcode) -> Bool { supportedCommands.supports(opcode) }

    public var supportsDataLengthExtension: Bool {
        leFeatures & HCILEReadLocalSupportedFeatures.dataPacketLengthExtension != 0
    }

    /// A dual-mode controller (every Raspberry Pi chip) as opposed to an LE-only one.
    public var supportsBREDR: Bool { lmpFeatures & HCIFeaturesReturn.lmpBREDRNotSupported == 0 }

    /// Unknown states (none reported) count as allowed, as Linux treats controllers without valid
    /// states; a refusal of the advertising command is then handled where it happens.
    public var canAdvertiseWhileConnected: Bool { leStates?.allowsConnectableAdvertisingWhilePeripheral ?? true }
    /// The same for non-connectable advertising (a broadcast while every connection slot is taken).
    public var canBroadcastWhileConnected: Bool { leStates?.allowsNonConnectableAdvertisingWhilePeripheral ?? true }
}

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

    public func supports(_ opcode: HCIOpcode) -> Bool { supportedCommands.supports(opcode) }

    public var supportsDataLengthExtension: Bool {
        leFeatures & HCILEReadLocalSupportedFeatures.dataPacketLengthExtension != 0
    }
}

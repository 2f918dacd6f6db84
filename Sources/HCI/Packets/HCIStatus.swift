/// An HCI error code (Core spec Vol 1 Part F). Unknown values are kept, never rejected.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var isSuccess: Bool { rawValue == 0 }

    public static let success = HCIStatus(rawValue: 0x00)
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    public static let unknownConnectionIdentifier = HCIStatus(rawValue: 0x02)
    public static let hardwareFailure = HCIStatus(rawValue: 0x03)
    public static let authenticationFailure = HCIStatus(rawValue: 0x05)
    public static let pinOrKeyMissing = HCIStatus(rawValue: 0x06)
    public static let memoryCapacityExceeded = HCIStatus(rawValue: 0x07)
    public static let connectionTimeout = HCIStatus(rawValue: 0x08)
    public static let connectionLimitExceeded = HCIStatus(rawValue: 0x09)
    public static let connectionAlreadyExists = HCIStatus(rawValue: 0x0B)
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    public static let unsupportedFeature = HCIStatus(rawValue: 0x11)
    public static let invalidParameters = HCIStatus(rawValue: 0x12)
    public static let remoteUserTerminated = HCIStatus(rawValue: 0x13)
    public static let remoteLowResources = HCIStatus(rawValue: 0x14)
    public static let remotePowerOff = HCIStatus(rawValue: 0x15)
    public static let localHostTerminated = HCIStatus(rawValue: 0x16)
    public static let unsupportedRemoteFeature = HCIStatus(rawValue: 0x1A)
    public static let unspecifiedError = HCIStatus(rawValue: 0x1F)
    public static let lmpResponseTimeout = HCIStatus(rawValue: 0x22)
    public static let instantPassed = HCIStatus(rawValue: 0x28)
    public static let controllerBusy = HCIStatus(rawValue: 0x3A)
    public static let unacceptableConnectionParameters = HCIStatus(rawValue: 0x3B)
    public static let advertisingTimeout = HCIStatus(rawValue: 0x3C)
    public static let terminatedMICFailure = HCIStatus(rawValue: 0x3D)
    public static let failedToEstablish = HCIStatus(rawValue: 0x3E)
    public static let unknownAdvertisingIdentifier = HCIStatus(rawValue: 0x42)

    public var description: String {
        let name: String
        switch self {
        case .success: name = "Success"
        case .unknownCommand: name = "Unknown HCI Command"
        case .unknownConnectionIdentifier: name = "Unknown Connection Identifier"
        case .hardwareFailure: name = "Hardware Failure"
        case .authenticationFailure: name = "Authentication Failure"
        case .pinOrKeyMissing: name = "PIN or Key Missing"
        case .memoryCapacityExceeded: name = "Memory Capacity Exceeded"
        case .connectionTimeout: name = "Connection Timeout"
        case .connectionLimitExceeded: name = "Connection Limit Exceeded"
        case .connectionAlreadyExists: name = "Connection Already Exists"
        case .commandDisallowed: name = "Command Disallowed"
        case .unsupportedFeature: name = "Unsupported Feature or Parameter Value"
        case .invalidParameters: name = "Invalid HCI Command Parameters"
        case .remoteUserTerminated: name = "Remote User Terminated Connection"
        case .remoteLowResources: name = "Remote Device Terminated Connection due to Low Resources"
        case .remotePowerOff: name = "Remote Device Terminated Connection due to Power Off"
        case .localHostTerminated: name = "Connection Terminated By Local Host"
        case .unsupportedRemoteFeature: name = "Unsupported Remote Feature"
        case .unspecifiedError: name = "Unspecified Error"
        case .lmpResponseTimeout: name = "LL Response Timeout"
        case .instantPassed: name = "Instant Passed"
        case .controllerBusy: name = "Controller Busy"
        case .unacceptableConnectionParameters: name = "Unacceptable Connection Parameters"
        case .advertisingTimeout: name = "Advertising Timeout"
        case .terminatedMICFailure: name = "Connection Terminated due to MIC Failure"
        case .failedToEstablish: name = "Connection Failed to be Established"
        case .unknownAdvertisingIdentifier: name = "Unknown Advertising Identifier"
        default: name = "Error"
        }
        return "\(name) (0x\(rawValue < 0x10 ? "0" : "")\(String(rawValue, radix: 16)))"
    }
}

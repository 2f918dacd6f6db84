/// Something bring-up found the controller cannot do. The host turns the feature off and carries
/// on; a limitation is reported (log, `status`, `doctor`), never a failed start.
public enum ControllerLimitation: Sendable, Equatable, CustomStringConvertible {
    /// An optional command was refused; what it serves is off.
    case commandRefused(HCIOpcode, HCIStatus, consequence: String)
    /// An optional command's answer was short or malformed; what it serves is off.
    case malformedAnswer(HCIOpcode, consequence: String)
    /// The controller refused the LE event mask its features call for and accepted a smaller one.
    case leEventMaskReduced(wanted: UInt64, accepted: UInt64)
    /// Its LE Supported States lack connectable advertising beside a peripheral link.
    case cannotAdvertiseWhileConnected

    public var description: String {
        switch self {
        case let .commandRefused(opcode, status, consequence):
            return "controller refused \(opcode) (\(status)): \(consequence)"
        case let .malformedAnswer(opcode, consequence):
            return "controller answered \(opcode) with a malformed reply: \(consequence)"
        case let .leEventMaskReduced(wanted, accepted):
            let lost = Self.leEventNames.filter { wanted & ~accepted & $0.bit != 0 }.map(\.name)
            return "controller refused LE event mask 0x\(String(wanted, radix: 16)), accepted 0x\(String(accepted, radix: 16)): "
                + "no \(lost.joined(separator: ", ")) events (an older controller; the host does without them)"
        case .cannotAdvertiseWhileConnected:
            return "this controller cannot advertise while connected: it serves one central at a time and advertises again when it disconnects"
        }
    }

    private static let leEventNames: [(bit: UInt64, name: String)] = [
        (HCILESetEventMask.connectionComplete, "LE Connection Complete"),
        (HCILESetEventMask.advertisingReport, "LE Advertising Report"),
        (HCILESetEventMask.connectionUpdateComplete, "LE Connection Update Complete"),
        (HCILESetEventMask.readRemoteFeaturesComplete, "LE Read Remote Features Complete"),
        (HCILESetEventMask.longTermKeyRequest, "LE Long Term Key Request"),
        (HCILESetEventMask.remoteConnectionParameterRequest, "LE Remote Connection Parameter Request"),
        (HCILESetEventMask.dataLengthChange, "LE Data Length Change"),
        (HCILESetEventMask.enhancedConnectionComplete, "LE Enhanced Connection Complete"),
    ]
}

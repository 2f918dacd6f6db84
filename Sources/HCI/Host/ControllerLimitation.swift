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
    /// A Broadcom or Cypress chip running the firmware in its ROM: the kernel found no patch file.
    case romFirmware(manufacturer: UInt16, subversion: UInt16)

    /// Whether someone should act (install firmware) rather than only know: the host copes with the rest.
    public var needsAction: Bool {
        if case .romFirmware = self { return true }
        return false
    }

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
        case let .romFirmware(manufacturer, subversion):
            let vendor = manufacturer == Self.cypress ? "Cypress" : "Broadcom"
            return "this \(vendor) controller (subversion 0x\(String(subversion, radix: 16))) runs the firmware in its ROM (patch build 0000): "
                + "the kernel found no .hcd patch file, and LE may misbehave. `dmesg | grep -i 'patch'` names the file it looked for; "
                + "on Raspberry Pi OS `sudo apt install --reinstall bluez-firmware`, then reboot"
        }
    }

    static let broadcom: UInt16 = 15
    static let cypress: UInt16 = 305

    /// Broadcom and Cypress chips boot their ROM firmware; the kernel's btbcm loads a patch (.hcd)
    /// at setup. The low 12 bits of the HCI revision are the patch build, which btbcm prints as
    /// "build NNNN" and is 0 when no patch was loaded.
    static func romFirmware(_ version: HCILocalVersionInformation) -> ControllerLimitation? {
        guard version.manufacturer == broadcom || version.manufacturer == cypress, version.hciRevision & 0x0FFF == 0 else { return nil }
        return .romFirmware(manufacturer: version.manufacturer, subversion: version.lmpSubversion)
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

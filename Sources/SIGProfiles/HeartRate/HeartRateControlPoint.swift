import BLECore

/// Heart Rate Control Point 0x2A39 (Heart Rate Service 3.3): a client writes one uint8 command.
public enum HeartRateControlPointCommand: UInt8, Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A39

    /// Sets Energy Expended back to 0.
    case resetEnergyExpended = 0x01

    /// Parses a write. The result is typed so a GATT server can answer with the ATT error directly.
    public static func parse(_ bytes: [UInt8]) -> Result<HeartRateControlPointCommand, HeartRateControlPointError> {
        guard bytes.count == 1, let command = HeartRateControlPointCommand(rawValue: bytes[0]) else {
            return .failure(.controlPointValueNotSupported(written: bytes))
        }
        return .success(command)
    }

    public var encoded: [UInt8] { [rawValue] }
}

/// The Heart Rate Service's application error for a rejected control point write.
public enum HeartRateControlPointError: Error, Hashable, Sendable, CustomStringConvertible {
    case controlPointValueNotSupported(written: [UInt8])

    /// ATT application error code sent in the Error Response.
    public var attErrorCode: UInt8 { 0x80 }

    public var description: String {
        switch self {
        case let .controlPointValueNotSupported(written):
            let shown = written.isEmpty ? "an empty value" : "0x" + written.hexString.uppercased()
            return "Control Point Value Not Supported (ATT error 0x80): wrote \(shown); "
                + "the only defined command is 0x01 (reset energy expended)"
        }
    }
}

extension HeartRateControlPointCommand: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("command", "Command", "Reset Energy Expended (0x01)", .string("reset_energy_expended"))]
    }
}

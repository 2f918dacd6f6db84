import BLECore
import HCI

/// Command Reject reasons (Vol 3 Part A 4.1).
public enum L2CAPRejectReason: UInt16, Sendable {
    case commandNotUnderstood = 0x0000
    case signalingMTUExceeded = 0x0001
    case invalidChannelID = 0x0002
}

/// Why an LE signaling packet could not be decoded; carries what is needed to reject it.
public enum LESignalingDecodingError: Error, Equatable, Sendable {
    /// Too short to hold even a command header: nothing to answer.
    case truncatedHeader
    /// A header was readable; the command is rejected with this identifier.
    case malformed(code: UInt8, identifier: UInt8)
}

/// The LE signaling commands a peripheral exchanges (Vol 3 Part A 4). Other commands are kept as
/// `.unsupported` so they can be rejected with their identifier.
public enum LESignalingCommand: Sendable, Equatable {
    case commandReject(identifier: UInt8, reason: UInt16, data: [UInt8])
    case connectionParameterUpdateRequest(identifier: UInt8, parameters: LEConnectionParameters)
    case connectionParameterUpdateResponse(identifier: UInt8, accepted: Bool)
    case unsupported(code: UInt8, identifier: UInt8)

    public static let commandRejectCode: UInt8 = 0x01
    public static let connectionParameterUpdateRequestCode: UInt8 = 0x12
    public static let connectionParameterUpdateResponseCode: UInt8 = 0x13

    /// The minimum signaling MTU on LE (Vol 3 Part A 4): larger commands are rejected.
    public static let minimumMTU = 23

    public init(decoding bytes: [UInt8]) throws(LESignalingDecodingError) {
        var reader = ByteReader(bytes)
        guard let code = try? reader.readUInt8(), let identifier = try? reader.readUInt8(),
              let length = try? reader.readUInt16() else { throw .truncatedHeader }
        // On LE one C-frame carries exactly one command; identifier 0 is never valid.
        guard identifier != 0, reader.remainingCount == Int(length) else { throw .malformed(code: code, identifier: identifier) }
        switch code {
        case Self.commandRejectCode:
            guard let reason = try? reader.readUInt16() else { throw .malformed(code: code, identifier: identifier) }
            self = .commandReject(identifier: identifier, reason: reason, data: reader.readRemaining())
        case Self.connectionParameterUpdateRequestCode:
            guard length == 8, let parameters = try? LEConnectionParameters(reading: &reader) else {
                throw .malformed(code: code, identifier: identifier)
            }
            self = .connectionParameterUpdateRequest(identifier: identifier, parameters: parameters)
        case Self.connectionParameterUpdateResponseCode:
            guard length == 2, let result = try? reader.readUInt16() else { throw .malformed(code: code, identifier: identifier) }
            self = .connectionParameterUpdateResponse(identifier: identifier, accepted: result == 0)
        default:
            self = .unsupported(code: code, identifier: identifier)
        }
    }

    public var encoded: [UInt8] {
        var body = ByteWriter()
        let code: UInt8, identifier: UInt8
        switch self {
        case let .commandReject(id, reason, data):
            (code, identifier) = (Self.commandRejectCode, id)
            body.append(reason)
            body.append(contentsOf: data)
        case let .connectionParameterUpdateRequest(id, parameters):
            (code, identifier) = (Self.connectionParameterUpdateRequestCode, id)
            parameters.write(to: &body)
        case let .connectionParameterUpdateResponse(id, accepted):
            (code, identifier) = (Self.connectionParameterUpdateResponseCode, id)
            body.append(UInt16(accepted ? 0 : 1))
        case let .unsupported(unsupportedCode, id):
            (code, identifier) = (unsupportedCode, id)
        }
        var writer = ByteWriter(capacity: 4 + body.count)
        writer.append(code)
        writer.append(identifier)
        writer.append(UInt16(truncatingIfNeeded: body.count))
        writer.append(contentsOf: body.bytes)
        return writer.bytes
    }
}

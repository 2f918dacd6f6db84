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
    /// A header was readable; a request is rejected with this identifier (a response never is).
    case malformed(code: UInt8, identifier: UInt8)
}

/// The LE signaling commands a peripheral exchanges (Vol 3 Part A 4). Requests for dynamic channels
/// are decoded so they can be refused precisely; other commands are kept as `.unsupported` (requests)
/// or `.otherResponse` so that nothing is ever answered with a Command Reject when it was a response.
public enum LESignalingCommand: Sendable, Equatable {
    case commandReject(identifier: UInt8, reason: UInt16, data: [UInt8])
    case connectionParameterUpdateRequest(identifier: UInt8, parameters: LEConnectionParameters)
    case connectionParameterUpdateResponse(identifier: UInt8, accepted: Bool)
    /// Disconnection Request (0x06) for a dynamic channel: `destination` is the receiver's CID.
    case disconnectionRequest(identifier: UInt8, destination: UInt16, source: UInt16)
    /// LE Credit Based Connection Request (0x14).
    case leCreditBasedConnectionRequest(identifier: UInt8, spsm: UInt16, source: UInt16)
    /// LE Credit Based Connection Response (0x15); a refusal carries zeros besides the result.
    case leCreditBasedConnectionResponse(identifier: UInt8, destination: UInt16, mtu: UInt16, mps: UInt16,
                                         credits: UInt16, result: UInt16)
    /// L2CAP Credit Based Connection Request (0x17, enhanced ATT and others): one source CID per channel.
    case creditBasedConnectionRequest(identifier: UInt8, spsm: UInt16, sources: [UInt16])
    /// L2CAP Credit Based Connection Response (0x18).
    case creditBasedConnectionResponse(identifier: UInt8, mtu: UInt16, mps: UInt16, credits: UInt16,
                                       result: UInt16, destinations: [UInt16])
    /// L2CAP Credit Based Reconfigure Request (0x19).
    case creditBasedReconfigureRequest(identifier: UInt8, destinations: [UInt16])
    /// L2CAP Credit Based Reconfigure Response (0x1A).
    case creditBasedReconfigureResponse(identifier: UInt8, result: UInt16)
    /// Flow Control Credit Indication (0x16): no response exists.
    case flowControlCredit(identifier: UInt8, channel: UInt16, credits: UInt16)
    /// A response we have no use for; it only ever completes or is dropped.
    case otherResponse(code: UInt8, identifier: UInt8)
    case unsupported(code: UInt8, identifier: UInt8)

    public static let commandRejectCode: UInt8 = 0x01
    public static let disconnectionRequestCode: UInt8 = 0x06
    public static let connectionParameterUpdateRequestCode: UInt8 = 0x12
    public static let connectionParameterUpdateResponseCode: UInt8 = 0x13
    public static let leCreditBasedConnectionRequestCode: UInt8 = 0x14
    public static let leCreditBasedConnectionResponseCode: UInt8 = 0x15
    public static let flowControlCreditCode: UInt8 = 0x16
    public static let creditBasedConnectionRequestCode: UInt8 = 0x17
    public static let creditBasedConnectionResponseCode: UInt8 = 0x18
    public static let creditBasedReconfigureRequestCode: UInt8 = 0x19
    public static let creditBasedReconfigureResponseCode: UInt8 = 0x1A

    /// Codes of responses (Vol 3 Part A 4, Table 4.2): they are never answered.
    public static let responseCodes: Set<UInt8> = [0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x15, 0x18, 0x1A]

    /// Whether a command with this code is a response (or the credit indication, which has none).
    public static func expectsNoAnswer(_ code: UInt8) -> Bool {
        responseCodes.contains(code) || code == flowControlCreditCode
    }

    /// The minimum signaling MTU on LE (Vol 3 Part A 4): larger commands are rejected.
    public static let minimumMTU = 23

    /// LE Credit Based Connection results (Vol 3 Part A 4.23).
    public static let resultSPSMNotSupported: UInt16 = 0x0002
    /// Credit Based Reconfigure result: one or more Destination CIDs invalid (Vol 3 Part A 4.27).
    public static let resultInvalidDestinationCID: UInt16 = 0x0003

    public init(decoding bytes: [UInt8]) throws(LESignalingDecodingError) {
        var reader = ByteReader(bytes)
        guard let code = try? reader.readUInt8(), let identifier = try? reader.readUInt8(),
              let length = try? reader.readUInt16() else { throw .truncatedHeader }
        // On LE one C-frame carries exactly one command; identifier 0 is never valid.
        guard identifier != 0, reader.remainingCount == Int(length) else { throw .malformed(code: code, identifier: identifier) }
        let malformed = LESignalingDecodingError.malformed(code: code, identifier: identifier)
        switch code {
        case Self.commandRejectCode:
            guard let reason = try? reader.readUInt16() else { throw malformed }
            self = .commandReject(identifier: identifier, reason: reason, data: reader.readRemaining())
        case Self.connectionParameterUpdateRequestCode:
            guard length == 8, let parameters = try? LEConnectionParameters(reading: &reader) else { throw malformed }
            self = .connectionParameterUpdateRequest(identifier: identifier, parameters: parameters)
        case Self.connectionParameterUpdateResponseCode:
            guard length == 2, let result = try? reader.readUInt16() else { throw malformed }
            self = .connectionParameterUpdateResponse(identifier: identifier, accepted: result == 0)
        case Self.disconnectionRequestCode:
            guard length == 4, let destination = try? reader.readUInt16(), let source = try? reader.readUInt16() else { throw malformed }
            self = .disconnectionRequest(identifier: identifier, destination: destination, source: source)
        case Self.leCreditBasedConnectionRequestCode:
            guard length == 10, let spsm = try? reader.readUInt16(), let source = try? reader.readUInt16() else { throw malformed }
            self = .leCreditBasedConnectionRequest(identifier: identifier, spsm: spsm, source: source)
        case Self.creditBasedConnectionRequestCode:
            // SPSM, MTU, MPS, credits, then 1…5 source CIDs.
            guard length >= 10, length <= 18, length % 2 == 0, let spsm = try? reader.readUInt16(),
                  (try? reader.readBytes(6)) != nil else { throw malformed }
            var sources: [UInt16] = []
            while reader.remainingCount >= 2, let source = try? reader.readUInt16() { sources.append(source) }
            self = .creditBasedConnectionRequest(identifier: identifier, spsm: spsm, sources: sources)
        case Self.creditBasedReconfigureRequestCode:
            // MTU, MPS, then 1…5 destination CIDs.
            guard length >= 6, length <= 14, length % 2 == 0, (try? reader.readBytes(4)) != nil else { throw malformed }
            var destinations: [UInt16] = []
            while reader.remainingCount >= 2, let destination = try? reader.readUInt16() { destinations.append(destination) }
            self = .creditBasedReconfigureRequest(identifier: identifier, destinations: destinations)
        case Self.flowControlCreditCode:
            guard length == 4, let channel = try? reader.readUInt16(), let credits = try? reader.readUInt16() else { throw malformed }
            self = .flowControlCredit(identifier: identifier, channel: channel, credits: credits)
        case _ where Self.responseCodes.contains(code):
            self = .otherResponse(code: code, identifier: identifier)
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
        case let .disconnectionRequest(id, destination, source):
            (code, identifier) = (Self.disconnectionRequestCode, id)
            body.append(destination)
            body.append(source)
        case let .leCreditBasedConnectionRequest(id, spsm, source):
            (code, identifier) = (Self.leCreditBasedConnectionRequestCode, id)
            body.append(spsm)
            body.append(source)
            // MTU 23, MPS 23, no initial credits: only the fields a refusal needs are kept.
            body.append(UInt16(23))
            body.append(UInt16(23))
            body.append(UInt16(0))
        case let .leCreditBasedConnectionResponse(id, destination, mtu, mps, credits, result):
            (code, identifier) = (Self.leCreditBasedConnectionResponseCode, id)
            body.append(destination)
            body.append(mtu)
            body.append(mps)
            body.append(credits)
            body.append(result)
        case let .creditBasedConnectionRequest(id, spsm, sources):
            (code, identifier) = (Self.creditBasedConnectionRequestCode, id)
            body.append(spsm)
            body.append(UInt16(64))
            body.append(UInt16(64))
            body.append(UInt16(0))
            sources.forEach { body.append($0) }
        case let .creditBasedConnectionResponse(id, mtu, mps, credits, result, destinations):
            (code, identifier) = (Self.creditBasedConnectionResponseCode, id)
            body.append(mtu)
            body.append(mps)
            body.append(credits)
            body.append(result)
            destinations.forEach { body.append($0) }
        case let .creditBasedReconfigureRequest(id, destinations):
            (code, identifier) = (Self.creditBasedReconfigureRequestCode, id)
            body.append(UInt16(64))
            body.append(UInt16(64))
            destinations.forEach { body.append($0) }
        case let .creditBasedReconfigureResponse(id, result):
            (code, identifier) = (Self.creditBasedReconfigureResponseCode, id)
            body.append(result)
        case let .flowControlCredit(id, channel, credits):
            (code, identifier) = (Self.flowControlCreditCode, id)
            body.append(channel)
            body.append(credits)
        case let .otherResponse(responseCode, id), let .unsupported(responseCode, id):
            (code, identifier) = (responseCode, id)
        }
        var writer = ByteWriter(capacity: 4 + body.count)
        writer.append(code)
        writer.append(identifier)
        writer.append(UInt16(truncatingIfNeeded: body.count))
        writer.append(contentsOf: body.bytes)
        return writer.bytes
    }
}

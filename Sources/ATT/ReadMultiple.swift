import BLECore

/// One tuple of a Read Multiple Variable Response (3.4.4.12). `valueLength` is the attribute's full
/// length; only the last tuple of a response may carry fewer octets than that, when the server cut it
/// to fit the MTU.
public struct ATTLengthValue: Hashable, Sendable {
    public var valueLength: UInt16
    public var value: [UInt8]

    public init(valueLength: UInt16, value: [UInt8]) {
        self.valueLength = valueLength
        self.value = value
    }

    /// A complete (untruncated) tuple.
    public init(value: [UInt8]) {
        self.init(valueLength: UInt16(clamping: value.count), value: value)
    }

    /// Whether the server cut this value to fit the response.
    public var isTruncated: Bool { value.count < Int(valueLength) }
}

// Read Multiple and Read Multiple Variable Request/Response (3.4.4.7, 3.4.4.8, 3.4.4.11, 3.4.4.12).
extension ATTPDU {
    static func decodeReadMultiple(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        switch r.opcode {
        case .readMultipleRequest, .readMultipleVariableRequest:
            guard r.remainingCount >= 4, r.remainingCount % 2 == 0 else {
                throw r.malformed("set of handles of \(r.remainingCount) octet(s) is not two or more 2-octet handles")
            }
            var handles: [UInt16] = []
            while r.remainingCount > 0 { handles.append(try r.uint16()) }
            return r.opcode == .readMultipleRequest ? .readMultipleRequest(handles: handles)
                                                    : .readMultipleVariableRequest(handles: handles)
        case .readMultipleResponse:
            return .readMultipleResponse(values: r.remaining())
        default:
            guard r.remainingCount >= 4 else {
                throw r.malformed("length value tuple list of \(r.remainingCount) octet(s) is shorter than 4")
            }
            var tuples: [ATTLengthValue] = []
            while r.remainingCount > 0 {
                // A tuple is never cut inside its Value Length field, so a lone octet is an error.
                let length = try r.uint16()
                let available = min(Int(length), r.remainingCount)
                tuples.append(ATTLengthValue(valueLength: length, value: try r.bytes(available)))
            }
            return .readMultipleVariableResponse(tuples)
        }
    }

    func encodeReadMultiple(into writer: inout ByteWriter) {
        switch self {
        case let .readMultipleRequest(handles), let .readMultipleVariableRequest(handles):
            for handle in handles { writer.append(handle) }
        case let .readMultipleResponse(values):
            writer.append(contentsOf: values)
        case let .readMultipleVariableResponse(tuples):
            for tuple in tuples {
                writer.append(tuple.valueLength)
                writer.append(contentsOf: tuple.value)
            }
        default:
            break
        }
    }

    /// A Read Multiple Response: the values concatenated in request order, cut to `mtu` − 1 (3.4.4.8).
    public static func readMultipleResponse(values: [[UInt8]], mtu: Int) -> ATTPDU {
        .readMultipleResponse(values: Array(values.joined().prefix(ATTConstants.clamped(mtu) - 1)))
    }

    /// A Read Multiple Variable Response cut to `mtu` − 1 octets as 3.4.4.12 requires: within a value
    /// when the cut falls there (its Value Length still gives the full length), or before a tuple whose
    /// Value Length field would not fit.
    public static func readMultipleVariableResponse(fitting values: [[UInt8]], mtu: Int) -> ATTPDU {
        var room = ATTConstants.clamped(mtu) - 1
        var tuples: [ATTLengthValue] = []
        for value in values {
            guard room >= 2 else { break }
            room -= 2
            let part = Array(value.prefix(room))
            room -= part.count
            tuples.append(ATTLengthValue(valueLength: UInt16(clamping: value.count), value: part))
            if part.count < value.count { break }
        }
        return .readMultipleVariableResponse(tuples)
    }
}

import BLECore

// Read and Read Blob Request/Response (3.4.4.3–3.4.4.6).
extension ATTPDU {
    static func decodeRead(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        switch r.opcode {
        case .readRequest:
            let handle = try r.uint16()
            try r.finish(fixedParameterLength: 2)
            return .readRequest(handle: handle)
        case .readBlobRequest:
            let handle = try r.uint16()
            let offset = try r.uint16()
            try r.finish(fixedParameterLength: 4)
            return .readBlobRequest(handle: handle, offset: offset)
        case .readResponse:
            return .readResponse(value: r.remaining())
        default:
            return .readBlobResponse(partValue: r.remaining())
        }
    }

    func encodeRead(into writer: inout ByteWriter) {
        switch self {
        case let .readRequest(handle):
            writer.append(handle)
        case let .readBlobRequest(handle, offset):
            writer.append(handle)
            writer.append(offset)
        case let .readResponse(value), let .readBlobResponse(value):
            writer.append(contentsOf: value)
        default:
            break
        }
    }

    /// A Read Response with the first `mtu` − 1 octets of the value (3.4.4.4).
    public static func readResponse(value: [UInt8], mtu: Int) -> ATTPDU {
        .readResponse(value: Array(value.prefix(ATTConstants.clamped(mtu) - 1)))
    }

    /// A Read Blob Response with up to `mtu` − 1 octets of `value` from `offset` (3.4.4.6); an offset
    /// equal to the length gives an empty part. Throws Invalid Offset past the end (3.4.4.5).
    public static func readBlobResponse(value: [UInt8], offset: UInt16, mtu: Int) throws(ATTErrorCode) -> ATTPDU {
        let start = Int(offset)
        guard start <= value.count else { throw .invalidOffset }
        return .readBlobResponse(partValue: Array(value[start...].prefix(ATTConstants.clamped(mtu) - 1)))
    }
}

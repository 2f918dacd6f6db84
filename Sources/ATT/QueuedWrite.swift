import BLECore

/// The Flags of an Execute Write Request (3.4.6.3); other values are reserved and rejected.
public enum ATTExecuteWriteFlags: UInt8, Hashable, Sendable {
    /// Discard every prepared write of this client.
    case cancel = 0x00
    /// Write every prepared value, in the order received.
    case write = 0x01
}

// Prepare Write and Execute Write Request/Response (3.4.6).
extension ATTPDU {
    static func decodeQueuedWrite(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        switch r.opcode {
        case .prepareWriteRequest, .prepareWriteResponse:
            let handle = try r.uint16()
            let offset = try r.uint16()
            let part = r.remaining()
            return r.opcode == .prepareWriteRequest
                ? .prepareWriteRequest(handle: handle, offset: offset, partValue: part)
                : .prepareWriteResponse(handle: handle, offset: offset, partValue: part)
        case .executeWriteRequest:
            let raw = try r.uint8()
            try r.finish(fixedParameterLength: 1)
            guard let flags = ATTExecuteWriteFlags(rawValue: raw) else {
                throw r.malformed("flags 0x\(String(raw, radix: 16)) are reserved (only 0x00 cancel and 0x01 write exist)")
            }
            return .executeWriteRequest(flags)
        default:
            try r.finish(fixedParameterLength: 0)
            return .executeWriteResponse
        }
    }

    func encodeQueuedWrite(into writer: inout ByteWriter) {
        switch self {
        case let .prepareWriteRequest(handle, offset, part), let .prepareWriteResponse(handle, offset, part):
            writer.append(handle)
            writer.append(offset)
            writer.append(contentsOf: part)
        case let .executeWriteRequest(flags):
            writer.append(flags.rawValue)
        default:
            break
        }
    }
}

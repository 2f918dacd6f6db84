import BLECore

/// One Handles Information entry of a Find By Type Value Response (3.4.3.4).
public struct ATTHandlesInformation: Hashable, Sendable {
    public var foundHandle: UInt16
    /// The last handle of the group; equal to `foundHandle` for a non-grouping attribute.
    public var groupEndHandle: UInt16
    public init(foundHandle: UInt16, groupEndHandle: UInt16) {
        self.foundHandle = foundHandle
        self.groupEndHandle = groupEndHandle
    }
}

// Find By Type Value Request/Response (3.4.3.3, 3.4.3.4).
extension ATTPDU {
    static func decodeFindByTypeValue(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        if r.opcode == .findByTypeValueRequest {
            let start = try r.uint16()
            let end = try r.uint16()
            let type = try r.uint16()
            return .findByTypeValueRequest(startHandle: start, endHandle: end, attributeType: type, value: r.remaining())
        }
        guard r.remainingCount > 0, r.remainingCount % 4 == 0 else {
            throw r.malformed("handles information list of \(r.remainingCount) octet(s) is not a non-empty list of 4-octet entries")
        }
        var list: [ATTHandlesInformation] = []
        while r.remainingCount > 0 {
            list.append(ATTHandlesInformation(foundHandle: try r.uint16(), groupEndHandle: try r.uint16()))
        }
        return .findByTypeValueResponse(list)
    }

    func encodeFindByTypeValue(into writer: inout ByteWriter) {
        switch self {
        case let .findByTypeValueRequest(start, end, type, value):
            writer.append(start)
            writer.append(end)
            writer.append(type)
            writer.append(contentsOf: value)
        case let .findByTypeValueResponse(list):
            for entry in list {
                writer.append(entry.foundHandle)
                writer.append(entry.groupEndHandle)
            }
        default:
            break
        }
    }

    /// A Find By Type Value Response with the leading entries that fit in `mtu` − 1. Nil when empty.
    public static func findByTypeValueResponse(fitting entries: [ATTHandlesInformation], mtu: Int) -> ATTPDU? {
        guard !entries.isEmpty else { return nil }
        let capacity = (ATTConstants.clamped(mtu) - 1) / 4
        return .findByTypeValueResponse(Array(entries.prefix(capacity)))
    }
}

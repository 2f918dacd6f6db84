import BLECore

/// The Attribute Data List of a Read By Type Response: at least one entry, every value the same
/// length, at most 253 octets so a pair fits the one-octet Length field (3.4.4.2).
public struct ATTAttributeDataList: Hashable, Sendable {
    public static let maximumValueLength = 253

    public let entries: [ATTHandleValue]

    public init(_ entries: [ATTHandleValue]) throws(ATTListError) {
        try ATTListError.checkUniformValueLengths(entries, maximum: Self.maximumValueLength) { $0.value.count }
        self.entries = entries
    }

    /// The Length field: octets of one handle-value pair.
    public var pairLength: Int { 2 + (entries.first?.value.count ?? 0) }
}

// Read By Type Request/Response (3.4.4.1, 3.4.4.2).
extension ATTPDU {
    static func decodeReadByType(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        if r.opcode == .readByTypeRequest {
            let start = try r.uint16()
            let end = try r.uint16()
            return .readByTypeRequest(startHandle: start, endHandle: end,
                                      attributeType: try r.remainingUUID(field: "attribute type"))
        }
        let length = Int(try r.uint8())
        guard length >= 2 else { throw r.malformed("length \(length) is shorter than a handle") }
        guard r.remainingCount > 0, r.remainingCount % length == 0 else {
            throw r.malformed("attribute data list of \(r.remainingCount) octet(s) is not a non-empty list of \(length)-octet pairs")
        }
        var entries: [ATTHandleValue] = []
        while r.remainingCount > 0 {
            entries.append(ATTHandleValue(handle: try r.uint16(), value: try r.bytes(length - 2)))
        }
        do {
            return .readByTypeResponse(try ATTAttributeDataList(entries))
        } catch {
            throw r.malformed(error.description)
        }
    }

    func encodeReadByType(into writer: inout ByteWriter) {
        switch self {
        case let .readByTypeRequest(start, end, type):
            writer.append(start)
            writer.append(end)
            writer.append(contentsOf: type.shortestLittleEndian)
        case let .readByTypeResponse(list):
            writer.append(UInt8(truncatingIfNeeded: list.pairLength))
            for entry in list.entries {
                writer.append(entry.handle)
                writer.append(contentsOf: entry.value)
            }
        default:
            break
        }
    }

    /// A Read By Type Response for attributes in handle order (3.4.4.2): each value is cut to
    /// min(`mtu` − 4, 253) octets, and entries are kept while their (cut) length equals the first one's
    /// and they fit in `mtu`. Nil when `entries` is empty (answer Attribute Not Found instead).
    public static func readByTypeResponse(fitting entries: [ATTHandleValue], mtu: Int) -> ATTPDU? {
        let mtu = ATTConstants.clamped(mtu)
        let limit = min(mtu - 4, ATTAttributeDataList.maximumValueLength)
        guard let first = entries.first else { return nil }
        let length = min(first.value.count, limit)
        let capacity = (mtu - 2) / (length + 2)
        var kept: [ATTHandleValue] = []
        for entry in entries {
            guard kept.count < capacity, min(entry.value.count, limit) == length else { break }
            kept.append(ATTHandleValue(handle: entry.handle, value: Array(entry.value.prefix(limit))))
        }
        guard let list = try? ATTAttributeDataList(kept) else { return nil }
        return .readByTypeResponse(list)
    }
}

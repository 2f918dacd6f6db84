import BLECore

/// One entry of a Read By Group Type Response: a grouping attribute, the end of its group, its value.
public struct ATTGroupData: Hashable, Sendable {
    public var handle: UInt16
    public var endGroupHandle: UInt16
    public var value: [UInt8]
    public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.endGroupHandle = endGroupHandle
        self.value = value
    }
}

/// The Attribute Data List of a Read By Group Type Response: at least one entry, every value the same
/// length, at most 251 octets so an entry fits the one-octet Length field (3.4.4.10).
public struct ATTGroupDataList: Hashable, Sendable {
    public static let maximumValueLength = 251

    public let entries: [ATTGroupData]

    public init(_ entries: [ATTGroupData]) throws(ATTListError) {
        try ATTListError.checkUniformValueLengths(entries, maximum: Self.maximumValueLength) { $0.value.count }
        self.entries = entries
    }

    /// The Length field: octets of one entry.
    public var entryLength: Int { 4 + (entries.first?.value.count ?? 0) }
}

// Read By Group Type Request/Response (3.4.4.9, 3.4.4.10).
extension ATTPDU {
    static func decodeReadByGroupType(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        if r.opcode == .readByGroupTypeRequest {
            let start = try r.uint16()
            let end = try r.uint16()
            return .readByGroupTypeRequest(startHandle: start, endHandle: end,
                                           groupType: try r.remainingUUID(field: "attribute group type"))
        }
        let length = Int(try r.uint8())
        guard length >= 4 else { throw r.malformed("length \(length) is shorter than two handles") }
        guard r.remainingCount > 0, r.remainingCount % length == 0 else {
            throw r.malformed("attribute data list of \(r.remainingCount) octet(s) is not a non-empty list of \(length)-octet entries")
        }
        var entries: [ATTGroupData] = []
        while r.remainingCount > 0 {
            entries.append(ATTGroupData(handle: try r.uint16(), endGroupHandle: try r.uint16(),
                                        value: try r.bytes(length - 4)))
        }
        do {
            return .readByGroupTypeResponse(try ATTGroupDataList(entries))
        } catch {
            throw r.malformed(error.description)
        }
    }

    func encodeReadByGroupType(into writer: inout ByteWriter) {
        switch self {
        case let .readByGroupTypeRequest(start, end, type):
            writer.append(start)
            writer.append(end)
            writer.append(contentsOf: type.shortestLittleEndian)
        case let .readByGroupTypeResponse(list):
            writer.append(UInt8(truncatingIfNeeded: list.entryLength))
            for entry in list.entries {
                writer.append(entry.handle)
                writer.append(entry.endGroupHandle)
                writer.append(contentsOf: entry.value)
            }
        default:
            break
        }
    }

    /// A Read By Group Type Response for groups in handle order (3.4.4.10): each value is cut to
    /// min(`mtu` − 6, 251) octets, and entries are kept while their (cut) length equals the first one's
    /// and they fit in `mtu`. Nil when `entries` is empty (answer Attribute Not Found instead).
    public static func readByGroupTypeResponse(fitting entries: [ATTGroupData], mtu: Int) -> ATTPDU? {
        let mtu = ATTConstants.clamped(mtu)
        let limit = min(mtu - 6, ATTGroupDataList.maximumValueLength)
        guard let first = entries.first else { return nil }
        let length = min(first.value.count, limit)
        let capacity = (mtu - 2) / (length + 4)
        var kept: [ATTGroupData] = []
        for entry in entries {
            guard kept.count < capacity, min(entry.value.count, limit) == length else { break }
            kept.append(ATTGroupData(handle: entry.handle, endGroupHandle: entry.endGroupHandle,
                                     value: Array(entry.value.prefix(limit))))
        }
        guard let list = try? ATTGroupDataList(kept) else { return nil }
        return .readByGroupTypeResponse(list)
    }
}

import BLECore

/// An attribute handle and its type, one entry of a Find Information Response.
public struct ATTHandleUUID: Hashable, Sendable {
    public var handle: UInt16
    public var uuid: BluetoothUUID
    public init(handle: UInt16, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }
}

/// The Format field of a Find Information Response (3.4.3.2).
public enum ATTUUIDFormat: UInt8, Hashable, Sendable {
    case bits16 = 0x01
    case bits128 = 0x02

    /// Octets of one handle-UUID pair.
    public var entryLength: Int { self == .bits16 ? 4 : 18 }
}

/// Find Information Response data: one UUID format for every pair, at least one pair.
public struct ATTInformationData: Hashable, Sendable {
    public let format: ATTUUIDFormat
    public let entries: [ATTHandleUUID]

    public init(format: ATTUUIDFormat, entries: [ATTHandleUUID]) throws(ATTListError) {
        guard !entries.isEmpty else { throw .empty }
        if format == .bits16, let index = entries.firstIndex(where: { $0.uuid.uint16 == nil }) {
            throw .uuidNotRepresentable(index: index, uuid: entries[index].uuid.description)
        }
        self.format = format
        self.entries = entries
    }

    func encode(into writer: inout ByteWriter) {
        writer.append(format.rawValue)
        for entry in entries {
            writer.append(entry.handle)
            if format == .bits16 {
                // The initializer guaranteed a 16-bit alias.
                writer.append(entry.uuid.uint16 ?? 0)
            } else {
                writer.append(contentsOf: entry.uuid.littleEndian128)
            }
        }
    }
}

// Find Information Request/Response (3.4.3.1, 3.4.3.2).
extension ATTPDU {
    static func decodeFindInformation(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        if r.opcode == .findInformationRequest {
            let start = try r.uint16()
            let end = try r.uint16()
            try r.finish(fixedParameterLength: 4)
            return .findInformationRequest(startHandle: start, endHandle: end)
        }
        let rawFormat = try r.uint8()
        guard let format = ATTUUIDFormat(rawValue: rawFormat) else {
            throw r.malformed("format 0x\(String(rawFormat, radix: 16)) is neither 0x01 (16-bit) nor 0x02 (128-bit)")
        }
        let size = format.entryLength
        guard r.remainingCount > 0, r.remainingCount % size == 0 else {
            throw r.malformed("information data of \(r.remainingCount) octet(s) is not a non-empty list of \(size)-octet pairs")
        }
        var entries: [ATTHandleUUID] = []
        while r.remainingCount > 0 {
            let handle = try r.uint16()
            let uuidBytes = try r.bytes(size - 2)
            guard let uuid = BluetoothUUID(littleEndian: uuidBytes) else { throw r.malformed("unreadable UUID") }
            entries.append(ATTHandleUUID(handle: handle, uuid: uuid))
        }
        do {
            return .findInformationResponse(try ATTInformationData(format: format, entries: entries))
        } catch {
            throw r.malformed(error.description)
        }
    }

    func encodeFindInformation(into writer: inout ByteWriter) {
        switch self {
        case let .findInformationRequest(start, end):
            writer.append(start)
            writer.append(end)
        case let .findInformationResponse(data):
            data.encode(into: &writer)
        default:
            break
        }
    }

    /// A Find Information Response holding the leading entries that share the first entry's UUID
    /// format and fit in `mtu` (3.4.3.2: one format per response). Nil when `entries` is empty.
    public static func findInformationResponse(fitting entries: [ATTHandleUUID], mtu: Int) -> ATTPDU? {
        guard let first = entries.first else { return nil }
        let format: ATTUUIDFormat = first.uuid.uint16 != nil ? .bits16 : .bits128
        let capacity = max(1, (ATTConstants.clamped(mtu) - 2) / format.entryLength)
        var kept: [ATTHandleUUID] = []
        for entry in entries {
            guard kept.count < capacity else { break }
            let entryFormat: ATTUUIDFormat = entry.uuid.uint16 != nil ? .bits16 : .bits128
            guard entryFormat == format else { break }
            kept.append(entry)
        }
        guard let data = try? ATTInformationData(format: format, entries: kept) else { return nil }
        return .findInformationResponse(data)
    }
}

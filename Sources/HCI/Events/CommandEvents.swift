import BLECore

/// Command Complete (Vol 4 Part E 7.7.14). Return parameters stay raw until the waiting command decodes them.
public struct HCICommandCompleteEvent: HCIParameters {
    public var numHCICommandPackets: UInt8
    public var opcode: HCIOpcode
    public var returnParameters: [UInt8]

    public init(numHCICommandPackets: UInt8 = 1, opcode: HCIOpcode, returnParameters: [UInt8]) {
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("Command Complete") { r throws(ByteReaderError) in (try r.readUInt8(), try r.readUInt16()) }
        self.init(numHCICommandPackets: f.0, opcode: HCIOpcode(rawValue: f.1), returnParameters: reader.readRemaining())
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(numHCICommandPackets)
        writer.append(opcode.rawValue)
        writer.append(contentsOf: returnParameters)
    }
}

/// Command Status (Vol 4 Part E 7.7.15).
public struct HCICommandStatusEvent: HCIParameters {
    public var status: HCIStatus
    public var numHCICommandPackets: UInt8
    public var opcode: HCIOpcode

    public init(status: HCIStatus, numHCICommandPackets: UInt8 = 1, opcode: HCIOpcode) {
        self.status = status
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("Command Status") { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readUInt8(), try r.readUInt16())
        }
        self.init(status: HCIStatus(rawValue: f.0), numHCICommandPackets: f.1, opcode: HCIOpcode(rawValue: f.2))
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(numHCICommandPackets)
        writer.append(opcode.rawValue)
    }
}

/// Number Of Completed Packets (Vol 4 Part E 7.7.19): ACL buffers the controller freed, per handle.
public struct HCINumberOfCompletedPacketsEvent: HCIParameters {
    public struct Entry: Sendable, Equatable {
        public var handle: UInt16
        public var completed: UInt16
        public init(handle: UInt16, completed: UInt16) {
            self.handle = handle
            self.completed = completed
        }
    }
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// The one entry of an event body (code, length, parameters) that is exactly a Number Of
    /// Completed Packets for a single handle, the form of almost every one while streaming; `nil`
    /// for anything else, which goes through `HCIEvent`. Decodes as that path does, without
    /// building an event or an array.
    public static func singleEntry(ofEventBody body: ArraySlice<UInt8>) -> Entry? {
        guard body.count == 7 else { return nil }
        let start = body.startIndex
        guard body[start] == HCIEventCode.numberOfCompletedPackets, body[start + 1] == 5, body[start + 2] == 1 else { return nil }
        return Entry(handle: (UInt16(body[start + 3]) | UInt16(body[start + 4]) << 8) & 0x0FFF,
                     completed: UInt16(body[start + 5]) | UInt16(body[start + 6]) << 8)
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        entries = try reader.decoding("Number Of Completed Packets") { r throws(ByteReaderError) in
            let count = Int(try r.readUInt8())
            var entries: [Entry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                entries.append(Entry(handle: try r.readUInt16() & 0x0FFF, completed: try r.readUInt16()))
            }
            return entries
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(UInt8(truncatingIfNeeded: entries.count))
        for entry in entries {
            writer.append(entry.handle)
            writer.append(entry.completed)
        }
    }
}

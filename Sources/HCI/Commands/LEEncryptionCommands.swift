import BLECore

/// LE Enable Encryption (Vol 4 Part E 7.8.24), sent by a central: Command Status, then Encryption Change.
public struct HCILEEnableEncryption: HCICommand {
    public static let opcode = HCIOpcode.leEnableEncryption
    public static var completion: HCICommandCompletion { .commandStatus }
    public var handle: UInt16
    public var random: UInt64
    public var ediv: UInt16
    /// Little-endian, 16 octets.
    public var longTermKey: [UInt8]

    public init(handle: UInt16, random: UInt64, ediv: UInt16, longTermKey: [UInt8]) {
        self.handle = handle
        self.random = random
        self.ediv = ediv
        self.longTermKey = longTermKey
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (handle, random, ediv, longTermKey) = try reader.decoding("LE Enable Encryption") { r throws(ByteReaderError) in
            (try r.readUInt16() & 0x0FFF, try r.readUInt64(), try r.readUInt16(), try r.readBytes(16))
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        writer.append(random)
        writer.append(ediv)
        writer.append(contentsOf: Array((longTermKey + [UInt8](repeating: 0, count: 16)).prefix(16)))
    }
}

/// LE Long Term Key Request Reply (Vol 4 Part E 7.8.25), the peripheral's answer with a key.
public struct HCILELongTermKeyRequestReply: HCICommand {
    public static let opcode = HCIOpcode.leLongTermKeyRequestReply
    public typealias ReturnParameters = HCIHandleReturn
    public var handle: UInt16
    public var longTermKey: [UInt8]

    public init(handle: UInt16, longTermKey: [UInt8]) {
        self.handle = handle
        self.longTermKey = longTermKey
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (handle, longTermKey) = try reader.decoding("LE Long Term Key Request Reply") { r throws(ByteReaderError) in
            (try r.readUInt16() & 0x0FFF, try r.readBytes(16))
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        writer.append(contentsOf: Array((longTermKey + [UInt8](repeating: 0, count: 16)).prefix(16)))
    }
}

/// LE Long Term Key Request Negative Reply (Vol 4 Part E 7.8.26): no key for this peer.
public struct HCILELongTermKeyRequestNegativeReply: HCICommand {
    public static let opcode = HCIOpcode.leLongTermKeyRequestNegativeReply
    public typealias ReturnParameters = HCIHandleReturn
    public var handle: UInt16
    public init(handle: UInt16) { self.handle = handle }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        handle = try reader.decoding("LE Long Term Key Request Negative Reply") { r throws(ByteReaderError) in try r.readUInt16() & 0x0FFF }
    }
    public func encode(into writer: inout ByteWriter) { writer.append(handle) }
}

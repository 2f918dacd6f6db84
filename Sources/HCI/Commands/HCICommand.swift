import BLECore

/// A value with an HCI wire form: command parameters, return parameters or event parameters.
/// Decoding is total and used in both directions (the host decodes events, the virtual controller commands).
public protocol HCIParameters: Sendable, Equatable {
    init(decoding reader: inout ByteReader) throws(HCIDecodingError)
    func encode(into writer: inout ByteWriter)
}

extension HCIParameters {
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(HCIDecodingError) {
        var reader = ByteReader(bytes)
        try self.init(decoding: &reader)
    }
}

/// How the controller acknowledges a command (Core spec Vol 4 Part E 4.4).
public enum HCICommandCompletion: Sendable {
    /// Command Complete carries the return parameters.
    case commandComplete
    /// Command Status acknowledges; a later event carries the outcome.
    case commandStatus
}

/// An HCI command with its parameters and the shape of its Command Complete return parameters.
public protocol HCICommand: HCIParameters {
    static var opcode: HCIOpcode { get }
    associatedtype ReturnParameters: HCIReturnParameters = HCIStatusReturn
    static var completion: HCICommandCompletion { get }
}

extension HCICommand {
    public static var completion: HCICommandCompletion { .commandComplete }

    /// The complete H4 frame for this command.
    public var packet: HCIPacket {
        var writer = ByteWriter(capacity: 40)
        writer.append(HCIPacketType.command.rawValue)
        writer.append(Self.opcode.rawValue)
        writer.append(UInt8(0))
        encode(into: &writer)
        var bytes = writer.bytes
        bytes[3] = UInt8(truncatingIfNeeded: bytes.count - 4)
        return HCIPacket(h4Bytes: bytes) ?? HCIPacket(type: .command, body: Array(bytes.dropFirst()))
    }
}

/// Return parameters start with a status; on failure controllers may omit the rest.
public protocol HCIReturnParameters: HCIParameters {
    var status: HCIStatus { get }
}

/// Return parameters that are only a status.
public struct HCIStatusReturn: HCIReturnParameters {
    public var status: HCIStatus
    public init(status: HCIStatus = .success) { self.status = status }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        status = HCIStatus(rawValue: try reader.decoding("status") { r throws(ByteReaderError) in try r.readUInt8() })
    }
    public func encode(into writer: inout ByteWriter) { writer.append(status.rawValue) }
}

/// Return parameters that are a status and the connection handle the command named.
public struct HCIHandleReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var handle: UInt16
    public init(status: HCIStatus = .success, handle: UInt16) {
        self.status = status
        self.handle = handle
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, handle) = try reader.decoding("handle return parameters") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), try r.readUInt16() & 0x0FFF)
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(handle)
    }
}

/// A command that carries no parameters.
public protocol HCIParameterlessCommand: HCICommand {
    init()
}

extension HCIParameterlessCommand {
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) { self.init() }
    public func encode(into writer: inout ByteWriter) {}
}

import BLECore

/// Disconnect (Vol 4 Part E 7.1.6): completes with Command Status, then Disconnection Complete.
public struct HCIDisconnect: HCICommand {
    public static let opcode = HCIOpcode.disconnect
    public static var completion: HCICommandCompletion { .commandStatus }
    public var handle: UInt16
    public var reason: HCIStatus

    public init(handle: UInt16, reason: HCIStatus = .remoteUserTerminated) {
        self.handle = handle
        self.reason = reason
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (handle, reason) = try reader.decoding("Disconnect") { r throws(ByteReaderError) in
            (try r.readUInt16() & 0x0FFF, HCIStatus(rawValue: try r.readUInt8()))
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        writer.append(reason.rawValue)
    }
}

/// Read Remote Version Information (Vol 4 Part E 7.1.23): Command Status, then its Complete event.
public struct HCIReadRemoteVersionInformation: HCICommand {
    public static let opcode = HCIOpcode.readRemoteVersionInformation
    public static var completion: HCICommandCompletion { .commandStatus }
    public var handle: UInt16

    public init(handle: UInt16) { self.handle = handle }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        handle = try reader.decoding("Read Remote Version Information") { r throws(ByteReaderError) in try r.readUInt16() & 0x0FFF }
    }
    public func encode(into writer: inout ByteWriter) { writer.append(handle) }
}

import BLECore

extension HCIOpcode {
    public static let leRemoteConnectionParameterRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x0020)
    public static let leRemoteConnectionParameterRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x0021)
}

/// LE Remote Connection Parameter Request Reply (Vol 4 Part E 7.8.31): accept the peer's parameters.
public struct HCILERemoteConnectionParameterRequestReply: HCICommand {
    public static let opcode = HCIOpcode.leRemoteConnectionParameterRequestReply
    public typealias ReturnParameters = HCIHandleReturn
    public var handle: UInt16
    public var parameters: LEConnectionParameters
    public var minCELength: UInt16
    public var maxCELength: UInt16

    public init(handle: UInt16, parameters: LEConnectionParameters, minCELength: UInt16 = 0, maxCELength: UInt16 = 0) {
        self.handle = handle
        self.parameters = parameters
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let layout = try LEHandleParametersLayout(decoding: &reader, what: "LE Remote Connection Parameter Request Reply")
        self.init(handle: layout.handle, parameters: layout.parameters, minCELength: layout.minCELength, maxCELength: layout.maxCELength)
    }
    public func encode(into writer: inout ByteWriter) {
        LEHandleParametersLayout(handle: handle, parameters: parameters, minCELength: minCELength, maxCELength: maxCELength).encode(into: &writer)
    }
}

/// LE Remote Connection Parameter Request Negative Reply (Vol 4 Part E 7.8.32).
public struct HCILERemoteConnectionParameterRequestNegativeReply: HCICommand {
    public static let opcode = HCIOpcode.leRemoteConnectionParameterRequestNegativeReply
    public typealias ReturnParameters = HCIHandleReturn
    public var handle: UInt16
    public var reason: HCIStatus

    public init(handle: UInt16, reason: HCIStatus = .unacceptableConnectionParameters) {
        self.handle = handle
        self.reason = reason
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Remote Connection Parameter Request Negative Reply") { r throws(ByteReaderError) in
            (try r.readUInt16(), try r.readUInt8())
        }
        self.init(handle: f.0 & 0x0FFF, reason: HCIStatus(rawValue: f.1))
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        writer.append(reason.rawValue)
    }
}

import BLECore

/// LE Connection Update Complete (Vol 4 Part E 7.7.65.3).
public struct LEConnectionUpdateCompleteEvent: HCIParameters {
    public var status: HCIStatus
    public var handle: UInt16
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    public init(status: HCIStatus = .success, handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.status = status
        self.handle = handle
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Connection Update Complete") { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readUInt16(), try r.readUInt16(), try r.readUInt16(), try r.readUInt16())
        }
        self.init(status: HCIStatus(rawValue: f.0), handle: f.1 & 0x0FFF, interval: f.2, latency: f.3, supervisionTimeout: f.4)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(handle)
        writer.append(interval)
        writer.append(latency)
        writer.append(supervisionTimeout)
    }
}

/// LE Long Term Key Request (Vol 4 Part E 7.7.65.5): the central started encryption; the host must
/// answer with LE Long Term Key Request Reply or Negative Reply.
public struct LELongTermKeyRequestEvent: HCIParameters {
    public var handle: UInt16
    public var random: UInt64
    public var ediv: UInt16

    public init(handle: UInt16, random: UInt64, ediv: UInt16) {
        self.handle = handle
        self.random = random
        self.ediv = ediv
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Long Term Key Request") { r throws(ByteReaderError) in
            (try r.readUInt16(), try r.readUInt64(), try r.readUInt16())
        }
        self.init(handle: f.0 & 0x0FFF, random: f.1, ediv: f.2)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        writer.append(random)
        writer.append(ediv)
    }
}

/// LE Data Length Change (Vol 4 Part E 7.7.65.7).
public struct LEDataLengthChangeEvent: HCIParameters {
    public var handle: UInt16
    public var maxTxOctets: UInt16
    public var maxTxTime: UInt16
    public var maxRxOctets: UInt16
    public var maxRxTime: UInt16

    public init(handle: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16) {
        self.handle = handle
        self.maxTxOctets = maxTxOctets
        self.maxTxTime = maxTxTime
        self.maxRxOctets = maxRxOctets
        self.maxRxTime = maxRxTime
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Data Length Change") { r throws(ByteReaderError) in
            (try r.readUInt16(), try r.readUInt16(), try r.readUInt16(), try r.readUInt16(), try r.readUInt16())
        }
        self.init(handle: f.0 & 0x0FFF, maxTxOctets: f.1, maxTxTime: f.2, maxRxOctets: f.3, maxRxTime: f.4)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        writer.append(maxTxOctets)
        writer.append(maxTxTime)
        writer.append(maxRxOctets)
        writer.append(maxRxTime)
    }
}

/// LE Remote Connection Parameter Request (Vol 4 Part E 7.7.65.6).
public struct LERemoteConnectionParameterRequestEvent: HCIParameters {
    public var handle: UInt16
    public var parameters: LEConnectionParameters

    public init(handle: UInt16, parameters: LEConnectionParameters) {
        self.handle = handle
        self.parameters = parameters
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (handle, parameters) = try reader.decoding("LE Remote Connection Parameter Request") { r throws(ByteReaderError) in
            (try r.readUInt16() & 0x0FFF, try LEConnectionParameters(reading: &r))
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        parameters.write(to: &writer)
    }
}

import BLECore

/// LE Set Data Length (Vol 4 Part E 7.8.33).
public struct HCILESetDataLength: HCICommand {
    public static let opcode = HCIOpcode.leSetDataLength
    public typealias ReturnParameters = HCIHandleReturn
    public var handle: UInt16
    public var txOctets: UInt16
    public var txTime: UInt16

    public init(handle: UInt16, txOctets: UInt16, txTime: UInt16) {
        self.handle = handle
        self.txOctets = txOctets
        self.txTime = txTime
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (handle, txOctets, txTime) = try reader.decoding("LE Set Data Length") { r throws(ByteReaderError) in
            (try r.readUInt16() & 0x0FFF, try r.readUInt16(), try r.readUInt16())
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        writer.append(txOctets)
        writer.append(txTime)
    }
}

/// A (octets, time) pair as LE Read/Write Suggested Default Data Length carry it.
public struct LEDataLength: Sendable, Equatable {
    public var octets: UInt16
    public var time: UInt16
    public init(octets: UInt16, time: UInt16) {
        self.octets = octets
        self.time = time
    }
    /// The spec's minimum, used by every controller before negotiation.
    public static let minimum = LEDataLength(octets: 27, time: 328)
    /// The LE 1M maximum.
    public static let maximum = LEDataLength(octets: 251, time: 2120)
}

/// LE Read Suggested Default Data Length (Vol 4 Part E 7.8.34).
public struct HCILEReadSuggestedDefaultDataLength: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.leReadSuggestedDefaultDataLength
    public typealias ReturnParameters = HCISuggestedDataLengthReturn
    public init() {}
}

public struct HCISuggestedDataLengthReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var length: LEDataLength
    public init(status: HCIStatus = .success, length: LEDataLength) {
        self.status = status
        self.length = length
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Read Suggested Default Data Length") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), try r.readUInt16(), try r.readUInt16())
        }
        self.init(status: f.0, length: LEDataLength(octets: f.1, time: f.2))
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(length.octets)
        writer.append(length.time)
    }
}

/// LE Write Suggested Default Data Length (Vol 4 Part E 7.8.35).
public struct HCILEWriteSuggestedDefaultDataLength: HCICommand {
    public static let opcode = HCIOpcode.leWriteSuggestedDefaultDataLength
    public var length: LEDataLength
    public init(length: LEDataLength) { self.length = length }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Write Suggested Default Data Length") { r throws(ByteReaderError) in
            (try r.readUInt16(), try r.readUInt16())
        }
        length = LEDataLength(octets: f.0, time: f.1)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(length.octets)
        writer.append(length.time)
    }
}

/// LE Read Maximum Data Length (Vol 4 Part E 7.8.46).
public struct HCILEReadMaximumDataLength: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.leReadMaximumDataLength
    public typealias ReturnParameters = HCIMaximumDataLengthReturn
    public init() {}
}

public struct HCIMaximumDataLengthReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var tx: LEDataLength
    public var rx: LEDataLength
    public init(status: HCIStatus = .success, tx: LEDataLength, rx: LEDataLength) {
        self.status = status
        self.tx = tx
        self.rx = rx
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Read Maximum Data Length") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), try r.readUInt16(), try r.readUInt16(), try r.readUInt16(), try r.readUInt16())
        }
        self.init(status: f.0, tx: LEDataLength(octets: f.1, time: f.2), rx: LEDataLength(octets: f.3, time: f.4))
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(tx.octets)
        writer.append(tx.time)
        writer.append(rx.octets)
        writer.append(rx.time)
    }
}

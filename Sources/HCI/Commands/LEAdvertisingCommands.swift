import BLECore

/// Legacy advertising PDU types for LE Set Advertising Parameters (Vol 4 Part E 7.8.5).
public enum LEAdvertisingType: UInt8, Sendable, CaseIterable {
    case connectableUndirected = 0x00          // ADV_IND
    case connectableDirectedHighDuty = 0x01    // ADV_DIRECT_IND
    case scannableUndirected = 0x02            // ADV_SCAN_IND
    case nonConnectableUndirected = 0x03       // ADV_NONCONN_IND
    case connectableDirectedLowDuty = 0x04

    public var isConnectable: Bool {
        self == .connectableUndirected || self == .connectableDirectedHighDuty || self == .connectableDirectedLowDuty
    }
    public var isScannable: Bool { self == .connectableUndirected || self == .scannableUndirected }
}

/// LE Set Advertising Parameters (Vol 4 Part E 7.8.5). Intervals are in 0.625 ms units.
public struct HCILESetAdvertisingParameters: HCICommand {
    public static let opcode = HCIOpcode.leSetAdvertisingParameters
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var type: LEAdvertisingType
    public var ownAddressType: AddressType
    public var peerAddressType: AddressType
    public var peerAddress: BluetoothAddress
    public var channelMap: UInt8
    public var filterPolicy: UInt8

    public init(intervalMin: UInt16 = 0x00A0, intervalMax: UInt16 = 0x00A0, type: LEAdvertisingType = .connectableUndirected,
                ownAddressType: AddressType = .publicDevice, peerAddressType: AddressType = .publicDevice,
                peerAddress: BluetoothAddress = .zero, channelMap: UInt8 = 0x07, filterPolicy: UInt8 = 0x00) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.type = type
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let fields = try reader.decoding("LE Set Advertising Parameters") { r throws(ByteReaderError) in
            (try r.readUInt16(), try r.readUInt16(), try r.readUInt8(), try r.readUInt8(), try r.readUInt8(),
             try BluetoothAddress(reading: &r), try r.readUInt8(), try r.readUInt8())
        }
        guard let type = LEAdvertisingType(rawValue: fields.2) else {
            throw .invalidValue("LE Set Advertising Parameters", field: "advertising type", value: UInt64(fields.2))
        }
        guard let own = AddressType(rawValue: fields.3) else {
            throw .invalidValue("LE Set Advertising Parameters", field: "own address type", value: UInt64(fields.3))
        }
        guard let peer = AddressType(rawValue: fields.4), peer.rawValue <= 1 else {
            throw .invalidValue("LE Set Advertising Parameters", field: "peer address type", value: UInt64(fields.4))
        }
        self.init(intervalMin: fields.0, intervalMax: fields.1, type: type, ownAddressType: own,
                  peerAddressType: peer, peerAddress: fields.5, channelMap: fields.6, filterPolicy: fields.7)
    }

    public func encode(into writer: inout ByteWriter) {
        writer.append(intervalMin)
        writer.append(intervalMax)
        writer.append(type.rawValue)
        writer.append(ownAddressType.rawValue)
        writer.append(peerAddressType.rawValue)
        peerAddress.write(to: &writer)
        writer.append(channelMap)
        writer.append(filterPolicy)
    }
}

/// The 31-octet payload shared by LE Set Advertising Data and LE Set Scan Response Data.
public struct LELegacyAdvertisingPayload: Sendable, Equatable {
    public static let maximumLength = 31
    public let data: [UInt8]

    /// `nil` when the data exceeds 31 octets.
    public init?(_ data: [UInt8]) {
        guard data.count <= Self.maximumLength else { return nil }
        self.data = data
    }

    init(decoding reader: inout ByteReader, what: String) throws(HCIDecodingError) {
        let (length, padded) = try reader.decoding(what) { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readBytes(Self.maximumLength))
        }
        guard length <= Self.maximumLength else {
            throw .invalidValue(what, field: "data length", value: UInt64(length))
        }
        data = Array(padded.prefix(Int(length)))
    }

    func encode(into writer: inout ByteWriter) {
        writer.append(UInt8(data.count))
        writer.append(contentsOf: data)
        writer.append(contentsOf: [UInt8](repeating: 0, count: Self.maximumLength - data.count))
    }
}

/// A command whose only parameter is a 31-octet legacy payload; they share one codec.
public protocol HCILegacyPayloadCommand: HCICommand {
    /// Names the command in decoding errors.
    static var commandName: String { get }
    var payload: LELegacyAdvertisingPayload { get }
    init(payload: LELegacyAdvertisingPayload)
}

extension HCILegacyPayloadCommand {
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        self.init(payload: try LELegacyAdvertisingPayload(decoding: &reader, what: Self.commandName))
    }
    public func encode(into writer: inout ByteWriter) { payload.encode(into: &writer) }
}

/// LE Set Advertising Data (Vol 4 Part E 7.8.7).
public struct HCILESetAdvertisingData: HCILegacyPayloadCommand {
    public static let opcode = HCIOpcode.leSetAdvertisingData
    public static let commandName = "LE Set Advertising Data"
    public var payload: LELegacyAdvertisingPayload
    public init(payload: LELegacyAdvertisingPayload) { self.payload = payload }
}

/// LE Set Scan Response Data (Vol 4 Part E 7.8.8).
public struct HCILESetScanResponseData: HCILegacyPayloadCommand {
    public static let opcode = HCIOpcode.leSetScanResponseData
    public static let commandName = "LE Set Scan Response Data"
    public var payload: LELegacyAdvertisingPayload
    public init(payload: LELegacyAdvertisingPayload) { self.payload = payload }
}

/// LE Set Advertising Enable (Vol 4 Part E 7.8.9).
public struct HCILESetAdvertisingEnable: HCICommand {
    public static let opcode = HCIOpcode.leSetAdvertisingEnable
    public var enable: Bool
    public init(enable: Bool) { self.enable = enable }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let value = try reader.decoding("LE Set Advertising Enable") { r throws(ByteReaderError) in try r.readUInt8() }
        guard value <= 1 else { throw .invalidValue("LE Set Advertising Enable", field: "enable", value: UInt64(value)) }
        enable = value == 1
    }
    public func encode(into writer: inout ByteWriter) { writer.append(UInt8(enable ? 1 : 0)) }
}

/// LE Read Advertising Physical Channel Tx Power (Vol 4 Part E 7.8.6).
public struct HCILEReadAdvertisingChannelTxPower: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.leReadAdvertisingChannelTxPower
    public typealias ReturnParameters = HCITxPowerReturn
    public init() {}
}

public struct HCITxPowerReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var txPower: Int8
    public init(status: HCIStatus = .success, txPower: Int8) {
        self.status = status
        self.txPower = txPower
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, txPower) = try reader.decoding("TX power") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), try r.readInt8())
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(txPower)
    }
}

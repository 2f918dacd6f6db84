import BLECore

/// Connection timing in controller units: interval 1.25 ms, supervision timeout 10 ms.
public struct LEConnectionParameters: Sendable, Equatable {
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    public init(intervalMin: UInt16 = 0x0018, intervalMax: UInt16 = 0x0028, latency: UInt16 = 0, supervisionTimeout: UInt16 = 0x01F4) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    public init(reading reader: inout ByteReader) throws(ByteReaderError) {
        self.init(intervalMin: try reader.readUInt16(), intervalMax: try reader.readUInt16(),
                  latency: try reader.readUInt16(), supervisionTimeout: try reader.readUInt16())
    }

    public func write(to writer: inout ByteWriter) {
        writer.append(intervalMin)
        writer.append(intervalMax)
        writer.append(latency)
        writer.append(supervisionTimeout)
    }
}

/// Handle, connection parameters and connection event lengths: the layout shared by LE Connection
/// Update and LE Remote Connection Parameter Request Reply.
struct LEHandleParametersLayout: Equatable, Sendable {
    var handle: UInt16
    var parameters: LEConnectionParameters
    var minCELength: UInt16
    var maxCELength: UInt16

    init(handle: UInt16, parameters: LEConnectionParameters, minCELength: UInt16, maxCELength: UInt16) {
        self.handle = handle
        self.parameters = parameters
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }

    init(decoding reader: inout ByteReader, what: String) throws(HCIDecodingError) {
        (handle, parameters, minCELength, maxCELength) = try reader.decoding(what) { r throws(ByteReaderError) in
            (try r.readUInt16() & 0x0FFF, try LEConnectionParameters(reading: &r), try r.readUInt16(), try r.readUInt16())
        }
    }

    func encode(into writer: inout ByteWriter) {
        writer.append(handle)
        parameters.write(to: &writer)
        writer.append(minCELength)
        writer.append(maxCELength)
    }
}

/// LE Create Connection (Vol 4 Part E 7.8.12): Command Status, then (Enhanced) Connection Complete.
public struct HCILECreateConnection: HCICommand {
    public static let opcode = HCIOpcode.leCreateConnection
    public static var completion: HCICommandCompletion { .commandStatus }
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    public var useFilterAcceptList: Bool
    public var peer: DeviceAddress
    public var ownAddressType: AddressType
    public var parameters: LEConnectionParameters
    public var minCELength: UInt16
    public var maxCELength: UInt16

    public init(peer: DeviceAddress, ownAddressType: AddressType = .publicDevice, parameters: LEConnectionParameters = .init(),
                scanInterval: UInt16 = 0x0010, scanWindow: UInt16 = 0x0010, useFilterAcceptList: Bool = false,
                minCELength: UInt16 = 0, maxCELength: UInt16 = 0) {
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.useFilterAcceptList = useFilterAcceptList
        self.peer = peer
        self.ownAddressType = ownAddressType
        self.parameters = parameters
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }

    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Create Connection") { r throws(ByteReaderError) in
            (try r.readUInt16(), try r.readUInt16(), try r.readUInt8(), try r.readUInt8(), try BluetoothAddress(reading: &r),
             try r.readUInt8(), try LEConnectionParameters(reading: &r), try r.readUInt16(), try r.readUInt16())
        }
        // Only 0x00 (use the peer address) and 0x01 (use the Filter Accept List) are defined (7.8.12).
        guard f.2 <= 1 else {
            throw .invalidValue("LE Create Connection", field: "initiator filter policy", value: UInt64(f.2))
        }
        guard let peerType = AddressType(rawValue: f.3) else {
            throw .invalidValue("LE Create Connection", field: "peer address type", value: UInt64(f.3))
        }
        guard let ownType = AddressType(rawValue: f.5) else {
            throw .invalidValue("LE Create Connection", field: "own address type", value: UInt64(f.5))
        }
        self.init(peer: DeviceAddress(f.4, type: peerType), ownAddressType: ownType,
                  parameters: f.6, scanInterval: f.0, scanWindow: f.1, useFilterAcceptList: f.2 == 1,
                  minCELength: f.7, maxCELength: f.8)
    }

    public func encode(into writer: inout ByteWriter) {
        writer.append(scanInterval)
        writer.append(scanWindow)
        writer.append(UInt8(useFilterAcceptList ? 1 : 0))
        writer.append(peer.type.rawValue)
        peer.address.write(to: &writer)
        writer.append(ownAddressType.rawValue)
        parameters.write(to: &writer)
        writer.append(minCELength)
        writer.append(maxCELength)
    }
}

/// LE Create Connection Cancel (Vol 4 Part E 7.8.13).
public struct HCILECreateConnectionCancel: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.leCreateConnectionCancel
    public init() {}
}

/// LE Connection Update (Vol 4 Part E 7.8.18): Command Status, then LE Connection Update Complete.
public struct HCILEConnectionUpdate: HCICommand {
    public static let opcode = HCIOpcode.leConnectionUpdate
    public static var completion: HCICommandCompletion { .commandStatus }
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
        let layout = try LEHandleParametersLayout(decoding: &reader, what: "LE Connection Update")
        self.init(handle: layout.handle, parameters: layout.parameters, minCELength: layout.minCELength, maxCELength: layout.maxCELength)
    }
    public func encode(into writer: inout ByteWriter) {
        LEHandleParametersLayout(handle: handle, parameters: parameters, minCELength: minCELength, maxCELength: maxCELength).encode(into: &writer)
    }
}

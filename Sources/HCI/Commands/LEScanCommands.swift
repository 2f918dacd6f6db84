import BLECore

/// LE Set Scan Parameters (Vol 4 Part E 7.8.10). Interval and window in 0.625 ms units.
public struct HCILESetScanParameters: HCICommand {
    public static let opcode = HCIOpcode.leSetScanParameters
    public var active: Bool
    public var interval: UInt16
    public var window: UInt16
    public var ownAddressType: AddressType
    public var filterPolicy: UInt8

    public init(active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010,
                ownAddressType: AddressType = .publicDevice, filterPolicy: UInt8 = 0) {
        self.active = active
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Set Scan Parameters") { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readUInt16(), try r.readUInt16(), try r.readUInt8(), try r.readUInt8())
        }
        guard f.0 <= 1 else { throw .invalidValue("LE Set Scan Parameters", field: "scan type", value: UInt64(f.0)) }
        guard let own = AddressType(rawValue: f.3) else {
            throw .invalidValue("LE Set Scan Parameters", field: "own address type", value: UInt64(f.3))
        }
        self.init(active: f.0 == 1, interval: f.1, window: f.2, ownAddressType: own, filterPolicy: f.4)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(UInt8(active ? 1 : 0))
        writer.append(interval)
        writer.append(window)
        writer.append(ownAddressType.rawValue)
        writer.append(filterPolicy)
    }
}

/// LE Set Scan Enable (Vol 4 Part E 7.8.11).
public struct HCILESetScanEnable: HCICommand {
    public static let opcode = HCIOpcode.leSetScanEnable
    public var enable: Bool
    public var filterDuplicates: Bool
    public init(enable: Bool, filterDuplicates: Bool = false) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("LE Set Scan Enable") { r throws(ByteReaderError) in (try r.readUInt8(), try r.readUInt8()) }
        guard f.0 <= 1 else { throw .invalidValue("LE Set Scan Enable", field: "enable", value: UInt64(f.0)) }
        guard f.1 <= 1 else { throw .invalidValue("LE Set Scan Enable", field: "filter duplicates", value: UInt64(f.1)) }
        self.init(enable: f.0 == 1, filterDuplicates: f.1 == 1)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(UInt8(enable ? 1 : 0))
        writer.append(UInt8(filterDuplicates ? 1 : 0))
    }
}

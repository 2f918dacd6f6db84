import BLECore

/// Reset (Vol 4 Part E 7.3.2).
public struct HCIReset: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.reset
    public init() {}
}

/// Set Event Mask (Vol 4 Part E 7.3.1). Bit n enables the event whose code is n + 1.
public struct HCISetEventMask: HCICommand {
    public static let opcode = HCIOpcode.setEventMask
    public var mask: UInt64

    public static let disconnectionComplete: UInt64 = 1 << 4
    public static let encryptionChange: UInt64 = 1 << 7
    public static let readRemoteVersionInformationComplete: UInt64 = 1 << 11
    public static let hardwareError: UInt64 = 1 << 15
    public static let dataBufferOverflow: UInt64 = 1 << 25
    public static let encryptionKeyRefreshComplete: UInt64 = 1 << 47
    /// Without this bit no LE event reaches the host at all.
    public static let leMeta: UInt64 = 1 << 61

    /// The events an LE-only host needs.
    public static let leHostDefault = HCISetEventMask(mask: disconnectionComplete | encryptionChange
        | readRemoteVersionInformationComplete | hardwareError | dataBufferOverflow
        | encryptionKeyRefreshComplete | leMeta)

    public init(mask: UInt64) { self.mask = mask }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        mask = try reader.decoding("Set Event Mask") { r throws(ByteReaderError) in try r.readUInt64() }
    }
    public func encode(into writer: inout ByteWriter) { writer.append(mask) }
}

/// Set Event Mask Page 2 (Vol 4 Part E 7.3.69).
public struct HCISetEventMaskPage2: HCICommand {
    public static let opcode = HCIOpcode.setEventMaskPage2
    public var mask: UInt64

    /// Encryption Change [v2] (event 0x59), which adds the key size.
    public static let encryptionChangeV2: UInt64 = 1 << 25

    public init(mask: UInt64) { self.mask = mask }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        mask = try reader.decoding("Set Event Mask Page 2") { r throws(ByteReaderError) in try r.readUInt64() }
    }
    public func encode(into writer: inout ByteWriter) { writer.append(mask) }
}

/// Write LE Host Support (Vol 4 Part E 7.3.79): sets the "LE Supported (Host)" LMP feature on a
/// dual-mode controller. Reset clears it; Linux, Zephyr and Bumble all set it after the event masks.
public struct HCIWriteLEHostSupport: HCICommand {
    public static let opcode = HCIOpcode.writeLEHostSupport
    public var leSupportedHost: Bool
    /// Simultaneous_LE_Host: deprecated, the host shall send 0x00 and the controller ignore it.
    public var simultaneousLEHost: UInt8

    public init(leSupportedHost: Bool = true, simultaneousLEHost: UInt8 = 0) {
        self.leSupportedHost = leSupportedHost
        self.simultaneousLEHost = simultaneousLEHost
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let (supported, simultaneous) = try reader.decoding("Write LE Host Support") { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readUInt8())
        }
        guard supported <= 1 else {
            throw .invalidValue("Write LE Host Support", field: "LE supported host", value: UInt64(supported))
        }
        leSupportedHost = supported == 1
        simultaneousLEHost = simultaneous
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(UInt8(leSupportedHost ? 1 : 0))
        writer.append(simultaneousLEHost)
    }
}

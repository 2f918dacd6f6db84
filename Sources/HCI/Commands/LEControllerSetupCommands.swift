import BLECore

/// LE Set Event Mask (Vol 4 Part E 7.8.1). Bit n enables LE subevent n + 1.
public struct HCILESetEventMask: HCICommand {
    public static let opcode = HCIOpcode.leSetEventMask
    public var mask: UInt64

    public static let connectionComplete: UInt64 = 1 << 0
    public static let advertisingReport: UInt64 = 1 << 1
    public static let connectionUpdateComplete: UInt64 = 1 << 2
    public static let readRemoteFeaturesComplete: UInt64 = 1 << 3
    public static let longTermKeyRequest: UInt64 = 1 << 4
    public static let remoteConnectionParameterRequest: UInt64 = 1 << 5
    public static let dataLengthChange: UInt64 = 1 << 6
    public static let enhancedConnectionComplete: UInt64 = 1 << 9

    /// Every LE event the host handles. Enhanced Connection Complete replaces the legacy event when
    /// both are enabled; we accept either.
    public static let hostDefault = HCILESetEventMask(mask: connectionComplete | advertisingReport
        | connectionUpdateComplete | readRemoteFeaturesComplete | longTermKeyRequest
        | remoteConnectionParameterRequest | dataLengthChange | enhancedConnectionComplete)

    /// The events this controller can generate, from its LE features, as Linux builds the mask
    /// (`hci_le_set_event_mask_sync`): older controllers may refuse a bit for a feature they lack.
    public static func forController(leFeatures: UInt64) -> HCILESetEventMask {
        typealias Features = HCILEReadLocalSupportedFeatures
        var mask = connectionComplete | advertisingReport | connectionUpdateComplete | readRemoteFeaturesComplete
        if leFeatures & Features.leEncryption != 0 { mask |= longTermKeyRequest }
        if leFeatures & Features.connectionParametersRequest != 0 { mask |= remoteConnectionParameterRequest }
        if leFeatures & Features.dataPacketLengthExtension != 0 { mask |= dataLengthChange }
        if leFeatures & Features.llPrivacy != 0 { mask |= enhancedConnectionComplete }
        return HCILESetEventMask(mask: mask)
    }

    /// The masks to try in turn when the controller refuses one: this one, then NimBLE's fallbacks
    /// for HCI 4.1 (0x3F) and 4.0 (0x1F) controllers, each limited to this mask's bits.
    public var fallbackLadder: [HCILESetEventMask] {
        var ladder = [self]
        for limit: UInt64 in [0x3F, 0x1F] where mask & limit != ladder[ladder.count - 1].mask {
            ladder.append(HCILESetEventMask(mask: mask & limit))
        }
        return ladder
    }

    public init(mask: UInt64) { self.mask = mask }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        mask = try reader.decoding("LE Set Event Mask") { r throws(ByteReaderError) in try r.readUInt64() }
    }
    public func encode(into writer: inout ByteWriter) { writer.append(mask) }
}

/// LE Read Buffer Size [v1] (Vol 4 Part E 7.8.2). A length of zero means "use Read Buffer Size".
public struct HCILEReadBufferSize: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.leReadBufferSize
    public typealias ReturnParameters = HCILEBufferSizeReturn
    public init() {}
}

public struct HCILEBufferSizeReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var aclDataPacketLength: UInt16
    public var totalACLDataPackets: UInt8
    public init(status: HCIStatus = .success, aclDataPacketLength: UInt16, totalACLDataPackets: UInt8) {
        self.status = status
        self.aclDataPacketLength = aclDataPacketLength
        self.totalACLDataPackets = totalACLDataPackets
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, aclDataPacketLength, totalACLDataPackets) = try reader.decoding("LE Read Buffer Size") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), try r.readUInt16(), try r.readUInt8())
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(aclDataPacketLength)
        writer.append(totalACLDataPackets)
    }
}

/// LE Read Buffer Size [v2] (Vol 4 Part E 7.8.2): adds the ISO buffers.
public struct HCILEReadBufferSizeV2: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.leReadBufferSizeV2
    public typealias ReturnParameters = HCILEBufferSizeV2Return
    public init() {}
}

public struct HCILEBufferSizeV2Return: HCIReturnParameters {
    public var status: HCIStatus
    public var aclDataPacketLength: UInt16
    public var totalACLDataPackets: UInt8
    public var isoDataPacketLength: UInt16
    public var totalISODataPackets: UInt8
    public init(status: HCIStatus = .success, aclDataPacketLength: UInt16, totalACLDataPackets: UInt8,
                isoDataPacketLength: UInt16 = 0, totalISODataPackets: UInt8 = 0) {
        self.status = status
        self.aclDataPacketLength = aclDataPacketLength
        self.totalACLDataPackets = totalACLDataPackets
        self.isoDataPacketLength = isoDataPacketLength
        self.totalISODataPackets = totalISODataPackets
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, aclDataPacketLength, totalACLDataPackets, isoDataPacketLength, totalISODataPackets) =
            try reader.decoding("LE Read Buffer Size v2") { r throws(ByteReaderError) in
                (HCIStatus(rawValue: try r.readUInt8()), try r.readUInt16(), try r.readUInt8(),
                 try r.readUInt16(), try r.readUInt8())
            }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(aclDataPacketLength)
        writer.append(totalACLDataPackets)
        writer.append(isoDataPacketLength)
        writer.append(totalISODataPackets)
    }
}

/// LE Read Local Supported Features (Vol 4 Part E 7.8.3).
public struct HCILEReadLocalSupportedFeatures: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.leReadLocalSupportedFeatures
    public typealias ReturnParameters = HCIFeaturesReturn
    public init() {}

    /// LE feature bit 0: LE Encryption.
    public static let leEncryption: UInt64 = 1 << 0
    /// LE feature bit 1: Connection Parameters Request procedure.
    public static let connectionParametersRequest: UInt64 = 1 << 1
    /// LE feature bit 5: LE Data Packet Length Extension.
    public static let dataPacketLengthExtension: UInt64 = 1 << 5
    /// LE feature bit 6: LL Privacy.
    public static let llPrivacy: UInt64 = 1 << 6
    /// LE feature bits 28-31: Connected Isochronous Stream (Central, Peripheral), Isochronous
    /// Broadcaster, Synchronized Receiver. Only such controllers have ISO buffers to report.
    public static let isochronousChannels: UInt64 = 0xF << 28
}

/// LE Read Supported States (Vol 4 Part E 7.8.27): which link-layer states and roles the controller
/// can be in at once.
public struct HCILEReadSupportedStates: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.leReadSupportedStates
    public typealias ReturnParameters = HCILESupportedStatesReturn
    public init() {}
}

public struct HCILESupportedStatesReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var states: LESupportedStates
    public init(status: HCIStatus = .success, states: LESupportedStates) {
        self.status = status
        self.states = states
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, states) = try reader.decoding("LE Read Supported States") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), LESupportedStates(rawValue: try r.readUInt64()))
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(states.rawValue)
    }
}

/// The LE_States bit field (Vol 4 Part E 7.8.27, table of state combinations).
public struct LESupportedStates: RawRepresentable, Sendable, Equatable, Hashable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Bit 20: Non-connectable Advertising State and Connection State (Peripheral Role) combination.
    public static let nonConnectableAdvertisingWhilePeripheral: UInt64 = 1 << 20
    /// Bit 21: Scannable Advertising State and Connection State (Peripheral Role) combination.
    public static let scannableAdvertisingWhilePeripheral: UInt64 = 1 << 21
    /// Bit 38: Connectable Advertising State and Connection State (Peripheral Role) combination.
    public static let connectableAdvertisingWhilePeripheral: UInt64 = 1 << 38

    /// Whether the controller can advertise connectably (ADV_IND, which is also scannable) while it
    /// is a peripheral on a link; Linux checks the same two bits (`is_advertising_allowed`).
    public var allowsConnectableAdvertisingWhilePeripheral: Bool {
        let needed = Self.connectableAdvertisingWhilePeripheral | Self.scannableAdvertisingWhilePeripheral
        return rawValue & needed == needed
    }

    /// Whether the controller can broadcast (ADV_NONCONN_IND) while it is a peripheral on a link.
    public var allowsNonConnectableAdvertisingWhilePeripheral: Bool {
        rawValue & Self.nonConnectableAdvertisingWhilePeripheral != 0
    }
}

/// LE Set Random Address (Vol 4 Part E 7.8.4).
public struct HCILESetRandomAddress: HCICommand {
    public static let opcode = HCIOpcode.leSetRandomAddress
    public var address: BluetoothAddress
    public init(address: BluetoothAddress) { self.address = address }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        address = try reader.decoding("LE Set Random Address") { r throws(ByteReaderError) in try BluetoothAddress(reading: &r) }
    }
    public func encode(into writer: inout ByteWriter) { address.write(to: &writer) }
}

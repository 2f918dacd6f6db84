import BLECore

/// Read Local Version Information (Vol 4 Part E 7.4.1).
public struct HCIReadLocalVersionInformation: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.readLocalVersionInformation
    public typealias ReturnParameters = HCILocalVersionInformation
    public init() {}
}

public struct HCILocalVersionInformation: HCIReturnParameters {
    public var status: HCIStatus
    public var hciVersion: UInt8
    public var hciRevision: UInt16
    public var lmpVersion: UInt8
    public var manufacturer: UInt16
    public var lmpSubversion: UInt16

    public init(status: HCIStatus = .success, hciVersion: UInt8, hciRevision: UInt16, lmpVersion: UInt8,
                manufacturer: UInt16, lmpSubversion: UInt16) {
        self.status = status
        self.hciVersion = hciVersion
        self.hciRevision = hciRevision
        self.lmpVersion = lmpVersion
        self.manufacturer = manufacturer
        self.lmpSubversion = lmpSubversion
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, hciVersion, hciRevision, lmpVersion, manufacturer, lmpSubversion) =
            try reader.decoding("Read Local Version Information") { r throws(ByteReaderError) in
                (HCIStatus(rawValue: try r.readUInt8()), try r.readUInt8(), try r.readUInt16(),
                 try r.readUInt8(), try r.readUInt16(), try r.readUInt16())
            }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(hciVersion)
        writer.append(hciRevision)
        writer.append(lmpVersion)
        writer.append(manufacturer)
        writer.append(lmpSubversion)
    }
}

/// Read Local Supported Commands (Vol 4 Part E 7.4.2).
public struct HCIReadLocalSupportedCommands: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.readLocalSupportedCommands
    public typealias ReturnParameters = HCISupportedCommandsReturn
    public init() {}
}

public struct HCISupportedCommandsReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var commands: HCISupportedCommands
    public init(status: HCIStatus = .success, commands: HCISupportedCommands) {
        self.status = status
        self.commands = commands
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, commands) = try reader.decoding("Read Local Supported Commands") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), HCISupportedCommands(octets: try r.readBytes(64)))
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(contentsOf: commands.octets)
    }
}

/// Read Local Supported Features (Vol 4 Part E 7.4.3).
public struct HCIReadLocalSupportedFeatures: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.readLocalSupportedFeatures
    public typealias ReturnParameters = HCIFeaturesReturn
    public init() {}
}

/// Status followed by an 8-octet feature bit field (LMP or LE features).
public struct HCIFeaturesReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var features: UInt64
    public init(status: HCIStatus = .success, features: UInt64) {
        self.status = status
        self.features = features
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, features) = try reader.decoding("supported features") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), try r.readUInt64())
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(features)
    }

    /// LMP feature bit 38: "LE Supported (Controller)".
    public static let lmpLESupported: UInt64 = 1 << 38
    /// LMP feature bit 37: "BR/EDR Not Supported".
    public static let lmpBREDRNotSupported: UInt64 = 1 << 37
}

/// Read Buffer Size (Vol 4 Part E 7.4.5): the shared ACL buffers, used when LE reports none of its own.
public struct HCIReadBufferSize: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.readBufferSize
    public typealias ReturnParameters = HCIBufferSizeReturn
    public init() {}
}

public struct HCIBufferSizeReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var aclDataPacketLength: UInt16
    public var scoDataPacketLength: UInt8
    public var totalACLDataPackets: UInt16
    public var totalSCODataPackets: UInt16

    public init(status: HCIStatus = .success, aclDataPacketLength: UInt16, scoDataPacketLength: UInt8 = 0,
                totalACLDataPackets: UInt16, totalSCODataPackets: UInt16 = 0) {
        self.status = status
        self.aclDataPacketLength = aclDataPacketLength
        self.scoDataPacketLength = scoDataPacketLength
        self.totalACLDataPackets = totalACLDataPackets
        self.totalSCODataPackets = totalSCODataPackets
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, aclDataPacketLength, scoDataPacketLength, totalACLDataPackets, totalSCODataPackets) =
            try reader.decoding("Read Buffer Size") { r throws(ByteReaderError) in
                (HCIStatus(rawValue: try r.readUInt8()), try r.readUInt16(), try r.readUInt8(),
                 try r.readUInt16(), try r.readUInt16())
            }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(aclDataPacketLength)
        writer.append(scoDataPacketLength)
        writer.append(totalACLDataPackets)
        writer.append(totalSCODataPackets)
    }
}

/// Read BD_ADDR (Vol 4 Part E 7.4.6): the controller's public address.
public struct HCIReadBDADDR: HCIParameterlessCommand {
    public static let opcode = HCIOpcode.readBDADDR
    public typealias ReturnParameters = HCIBDADDRReturn
    public init() {}
}

public struct HCIBDADDRReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var address: BluetoothAddress
    public init(status: HCIStatus = .success, address: BluetoothAddress) {
        self.status = status
        self.address = address
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        (status, address) = try reader.decoding("Read BD_ADDR") { r throws(ByteReaderError) in
            (HCIStatus(rawValue: try r.readUInt8()), try BluetoothAddress(reading: &r))
        }
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        address.write(to: &writer)
    }
}

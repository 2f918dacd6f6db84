import BLECore

/// Configuration of the GAP (0x1800) and GATT (0x1801) services the database always puts first.
public struct BuiltInServices: Hashable, Sendable {
    /// Device Name (0x2A00), read-only, fixed at build time. At most 248 octets of UTF-8 (Core Vol 3 Part C 12.1).
    public var deviceName: String
    /// Appearance (0x2A01), an Assigned Numbers category/subcategory value; 0 is "unknown".
    public var appearance: UInt16
    /// Peripheral Preferred Connection Parameters (0x2A04); `nil` leaves the characteristic out.
    public var preferredConnectionParameters: PreferredConnectionParameters?
    /// Server Supported Features (0x2B3A) octet; `nil` leaves the characteristic out.
    public var serverSupportedFeatures: UInt8?

    public static let maximumDeviceNameLength = 248

    public init(
        deviceName: String,
        appearance: UInt16 = 0x0000,
        preferredConnectionParameters: PreferredConnectionParameters? = .noPreference,
        serverSupportedFeatures: UInt8? = nil
    ) {
        self.deviceName = deviceName
        self.appearance = appearance
        self.preferredConnectionParameters = preferredConnectionParameters
        self.serverSupportedFeatures = serverSupportedFeatures
    }

    var genericAccessService: GATTService {
        var characteristics = [
            GATTCharacteristic(id: .deviceName, uuid: GATTUUID.deviceName, properties: .read,
                               permissions: .readable, value: .static(Array(deviceName.utf8))),
            GATTCharacteristic(id: .appearance, uuid: GATTUUID.appearance, properties: .read,
                               permissions: .readable,
                               value: .static([UInt8(truncatingIfNeeded: appearance), UInt8(truncatingIfNeeded: appearance >> 8)])),
        ]
        if let parameters = preferredConnectionParameters {
            characteristics.append(GATTCharacteristic(
                id: .peripheralPreferredConnectionParameters, uuid: GATTUUID.peripheralPreferredConnectionParameters,
                properties: .read, permissions: .readable, value: .static(parameters.littleEndianBytes)))
        }
        return GATTService(uuid: GATTUUID.genericAccessService, characteristics: characteristics)
    }

    /// The Database Hash value is filled in by the builder once every handle is known.
    var genericAttributeService: GATTService {
        var characteristics = [
            GATTCharacteristic(id: .serviceChanged, uuid: GATTUUID.serviceChanged, properties: .indicate,
                               permissions: [], value: .dynamic),
            GATTCharacteristic(id: .clientSupportedFeatures, uuid: GATTUUID.clientSupportedFeatures,
                               properties: [.read, .write], permissions: [.readable, .writeable], value: .dynamic),
            GATTCharacteristic(id: .databaseHash, uuid: GATTUUID.databaseHash, properties: .read,
                               permissions: .readable, value: .static([UInt8](repeating: 0, count: 16))),
        ]
        if let features = serverSupportedFeatures {
            characteristics.append(GATTCharacteristic(
                id: .serverSupportedFeatures, uuid: GATTUUID.serverSupportedFeatures,
                properties: .read, permissions: .readable, value: .static([features])))
        }
        return GATTService(uuid: GATTUUID.genericAttributeService, characteristics: characteristics)
    }
}

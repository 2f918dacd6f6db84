import BLECore

/// Assigned numbers the database lays out itself (Core Vol 3 Part G 3, Assigned Numbers 3.4–3.8).
public enum GATTUUID {
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let include = BluetoothUUID(0x2802)
    public static let characteristic = BluetoothUUID(0x2803)

    public static let extendedProperties = BluetoothUUID(0x2900)
    public static let userDescription = BluetoothUUID(0x2901)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    public static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
    public static let presentationFormat = BluetoothUUID(0x2904)
    public static let aggregateFormat = BluetoothUUID(0x2905)

    public static let genericAccessService = BluetoothUUID(0x1800)
    public static let genericAttributeService = BluetoothUUID(0x1801)

    public static let deviceName = BluetoothUUID(0x2A00)
    public static let appearance = BluetoothUUID(0x2A01)
    public static let peripheralPreferredConnectionParameters = BluetoothUUID(0x2A04)
    public static let serviceChanged = BluetoothUUID(0x2A05)
    public static let clientSupportedFeatures = BluetoothUUID(0x2B29)
    public static let databaseHash = BluetoothUUID(0x2B2A)
    public static let serverSupportedFeatures = BluetoothUUID(0x2B3A)

    /// The all-zero UUID, which no attribute may carry.
    public static let zero = BluetoothUUID(high: 0, low: 0)

    /// Types the server generates; a user-supplied descriptor must not use them.
    static let generatedDescriptorTypes: Set<BluetoothUUID> = [
        extendedProperties, clientCharacteristicConfiguration, serverCharacteristicConfiguration,
    ]
    /// Declaration types; a service or characteristic with one of these UUIDs would confuse discovery.
    static let declarationTypes: Set<BluetoothUUID> = [primaryService, secondaryService, include, characteristic]
}

import BLECore
import SecurityToolbox

/// The Database Hash (Core v5.4 Vol 3 Part G 7.3.1): AES-CMAC with an all-zero key over, in ascending
/// handle order,
/// - Handle ‖ Type ‖ Value of every Primary Service, Secondary Service, Include, Characteristic
///   and Characteristic Extended Properties attribute;
/// - Handle ‖ Type of every User Description, CCCD, SCCD, Presentation Format and Aggregate Format
///   attribute.
/// Handles and 16-bit types are little-endian; values are the attribute values as sent over ATT.
/// Characteristic values and all other descriptors are not covered.
public enum DatabaseHash {
    static let fullyHashedTypes: Set<BluetoothUUID> = [
        GATTUUID.primaryService, GATTUUID.secondaryService, GATTUUID.include, GATTUUID.characteristic,
        GATTUUID.extendedProperties,
    ]
    static let handleAndTypeOnlyTypes: Set<BluetoothUUID> = [
        GATTUUID.userDescription, GATTUUID.clientCharacteristicConfiguration,
        GATTUUID.serverCharacteristicConfiguration, GATTUUID.presentationFormat, GATTUUID.aggregateFormat,
    ]

    /// The CMAC input for `attributes` (which must be in ascending handle order).
    public static func message(for attributes: [Attribute]) -> [UInt8] {
        var writer = ByteWriter(capacity: attributes.count * 8)
        for attribute in attributes {
            let full = fullyHashedTypes.contains(attribute.type)
            guard full || handleAndTypeOnlyTypes.contains(attribute.type) else { continue }
            writer.append(attribute.handle)
            writer.append(contentsOf: attribute.type.shortestLittleEndian)
            if full { writer.append(contentsOf: attribute.value.knownBytes ?? []) }
        }
        return writer.bytes
    }

    /// The CMAC in the order RFC 4493 prints it (most significant octet first).
    public static func cmac(for attributes: [Attribute]) throws(AESCMACError) -> [UInt8] {
        try AESCMAC.mac(key: [UInt8](repeating: 0, count: 16), message: message(for: attributes))
    }

    /// The Database Hash characteristic value: the 128-bit CMAC as a little-endian field, like every
    /// multi-octet characteristic value (Core Vol 3 Part F 3.3.1; Part G 7.3 does not say otherwise).
    public static func characteristicValue(for attributes: [Attribute]) throws(AESCMACError) -> [UInt8] {
        try cmac(for: attributes).reversed()
    }
}

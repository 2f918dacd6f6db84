import BLECore
import SecurityToolbox

/// Why a service or database was refused. Each message says what is wrong and how to fix it.
public enum GATTDatabaseError: Error, Equatable, Sendable, CustomStringConvertible {
    case zeroUUID(context: String)
    case reservedUUID(BluetoothUUID, context: String)
    case duplicateService(BluetoothUUID)
    case builtInServiceRedeclared(BluetoothUUID)
    case duplicateCharacteristicID(CharacteristicID)
    case staticValueOnWriteableCharacteristic(CharacteristicID)
    case staticValueOnNotifyingCharacteristic(CharacteristicID)
    case staticValueNotReadable(CharacteristicID)
    case writePropertyWithoutWriteablePermission(CharacteristicID)
    case readPropertyWithoutReadablePermission(CharacteristicID)
    case writeablePermissionWithoutWriteProperty(CharacteristicID)
    case readablePermissionWithoutReadProperty(CharacteristicID)
    case securityWithoutAccess(CharacteristicID, attribute: BluetoothUUID, detail: String)
    case reliableWriteWithoutWriteProperty(CharacteristicID)
    case writableAuxiliariesWithoutWriteableUserDescription(CharacteristicID)
    case valueTooLong(CharacteristicID, attribute: BluetoothUUID, length: Int)
    case generatedDescriptorSupplied(CharacteristicID, descriptor: BluetoothUUID)
    case staticDescriptorWriteable(CharacteristicID, descriptor: BluetoothUUID)
    case includedServiceNotFound(service: BluetoothUUID, included: BluetoothUUID)
    case serviceIncludesItself(BluetoothUUID)
    case includeCycle([BluetoothUUID])
    case databaseFull(requiredAttributes: Int)
    case deviceNameTooLong(Int)
    case invalidPreferredConnectionParameters(String)
    case hashFailed(AESCMACError)

    /// An attribute value may be at most 512 octets (Core Vol 3 Part F 3.2.9).
    public static let maximumValueLength = 512

    public var description: String {
        switch self {
        case let .zeroUUID(context):
            return "\(context) has the all-zero UUID; give it its assigned 16-bit UUID or a random 128-bit one"
        case let .reservedUUID(uuid, context):
            return "\(context) uses \(uuid), which is an attribute declaration type; choose the UUID of the service or characteristic itself"
        case let .duplicateService(uuid):
            return "service \(uuid) is already in the database; each service UUID may be added once (merge the characteristics into one service)"
        case let .builtInServiceRedeclared(uuid):
            return "service \(uuid) is built in (GAP 1800 / GATT 1801); configure it through BuiltInServices instead of adding it"
        case let .duplicateCharacteristicID(id):
            return "characteristic id '\(id)' is used twice; give each characteristic its own id"
        case let .staticValueOnWriteableCharacteristic(id):
            return "characteristic \(id) has a static value but can be written; static values are cached and read-only, use .dynamic for writeable characteristics"
        case let .staticValueOnNotifyingCharacteristic(id):
            return "characteristic \(id) has a static value but notifies or indicates; a static value never changes, use .dynamic"
        case let .staticValueNotReadable(id):
            return "characteristic \(id) has a static value but no read property; add .read and .readable or use .dynamic"
        case let .writePropertyWithoutWriteablePermission(id):
            return "characteristic \(id) has a write property but not the .writeable permission; add .writeable or remove the write properties"
        case let .readPropertyWithoutReadablePermission(id):
            return "characteristic \(id) has the read property but not the .readable permission; add .readable or remove .read"
        case let .writeablePermissionWithoutWriteProperty(id):
            return "characteristic \(id) is .writeable but has no write, write-without-response or signed-write property; add one or remove .writeable"
        case let .readablePermissionWithoutReadProperty(id):
            return "characteristic \(id) is .readable but lacks the read property; add .read or remove .readable"
        case let .securityWithoutAccess(id, attribute, detail):
            return "attribute \(attribute) of characteristic \(id): \(detail)"
        case let .reliableWriteWithoutWriteProperty(id):
            return "characteristic \(id) allows reliable writes but lacks the write property; add .write and .writeable"
        case let .writableAuxiliariesWithoutWriteableUserDescription(id):
            return "characteristic \(id) declares writable auxiliaries but has no writeable, dynamic User Description (0x2901) descriptor; add one or drop the flag"
        case let .valueTooLong(id, attribute, length):
            return "value of \(attribute) in characteristic \(id) is \(length) bytes; attribute values are limited to 512 bytes"
        case let .generatedDescriptorSupplied(id, descriptor):
            return "characteristic \(id) supplies descriptor \(descriptor), which the database generates itself (CCCD from notify/indicate, SCCD from broadcast, Extended Properties from the flags); remove it"
        case let .staticDescriptorWriteable(id, descriptor):
            return "descriptor \(descriptor) of characteristic \(id) has a static value but is .writeable; use .dynamic or drop .writeable"
        case let .includedServiceNotFound(service, included):
            return "service \(service) includes \(included), which is not in the database; add \(included) first or remove the include"
        case let .serviceIncludesItself(uuid):
            return "service \(uuid) includes itself; remove that include"
        case let .includeCycle(path):
            return "services include each other in a cycle (\(path.map(\.description).joined(separator: " → "))); break the cycle"
        case let .databaseFull(required):
            return "the database would need \(required) attributes but handles end at 0xFFFF (65535); remove services or characteristics"
        case let .deviceNameTooLong(count):
            return "device name is \(count) bytes of UTF-8; GAP allows at most 248, shorten it"
        case let .invalidPreferredConnectionParameters(problem):
            return "preferred connection parameters are invalid: \(problem); fix them or pass nil"
        case let .hashFailed(error):
            return "could not compute the Database Hash: \(error)"
        }
    }
}

import BLECore
import BridgeConfiguration
import GATT

/// Applies `require-encryption` and `require-authentication` to a service's characteristics.
enum CharacteristicSecurity {
    static func apply(_ settings: SecuritySettings, to service: GATTService) -> GATTService {
        var service = service
        service.characteristics = service.characteristics.map { characteristic in
            var characteristic = characteristic
            let encrypted = settings.requireEncryption.contains(characteristic.uuid)
            let authenticated = settings.requireAuthentication.contains(characteristic.uuid)
            guard encrypted || authenticated else { return characteristic }
            // Reading or subscribing (the CCCD takes the value's read security) and writing alike.
            let delivers = characteristic.permissions.contains(.readable) || !characteristic.properties.isDisjoint(with: [.notify, .indicate])
            if delivers {
                characteristic.permissions.insert(authenticated ? .readAuthenticationRequired : .readEncryptionRequired)
                if authenticated { characteristic.permissions.insert(.readEncryptionRequired) }
            }
            if characteristic.permissions.contains(.writeable) {
                characteristic.permissions.insert(authenticated ? .writeAuthenticationRequired : .writeEncryptionRequired)
                if authenticated { characteristic.permissions.insert(.writeEncryptionRequired) }
            }
            return characteristic
        }
        return service
    }
}

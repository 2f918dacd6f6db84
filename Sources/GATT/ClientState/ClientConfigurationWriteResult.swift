/// What became of a CCCD write. The ATT server maps the refusals to error codes:
/// `.improperlyConfigured` to 0xFD (CCCD Improperly Configured), `.unknownCharacteristic` to
/// Attribute Not Found / Invalid Handle.
public enum ClientConfigurationWriteResult: Hashable, Sendable {
    /// Stored; `previous` is what the peer had before (to emit subscribed/unsubscribed events).
    case updated(previous: ClientConfiguration, current: ClientConfiguration)
    /// The same value as before; nothing to report upwards.
    case unchanged(ClientConfiguration)
    /// Bits the characteristic does not support, or reserved bits, were set; nothing stored.
    case improperlyConfigured(requested: UInt16, allowed: ClientConfiguration)
    /// The characteristic has no CCCD in this database.
    case unknownCharacteristic(CharacteristicID)
}

/// Where the value of a characteristic or descriptor comes from.
public enum GATTValue: Hashable, Sendable {
    /// Cached by the server and answered without the application; read-only, as in CoreBluetooth.
    case `static`([UInt8])
    /// Every read and write goes to the application.
    case dynamic

    public var staticBytes: [UInt8]? {
        if case let .static(bytes) = self { return bytes }
        return nil
    }
}

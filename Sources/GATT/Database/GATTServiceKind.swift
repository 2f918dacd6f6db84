import BLECore

/// Primary or secondary service, the two grouping types of Read By Group Type.
public enum GATTServiceKind: Hashable, Sendable {
    case primary
    case secondary

    public var declarationType: BluetoothUUID {
        self == .primary ? GATTUUID.primaryService : GATTUUID.secondaryService
    }
}

import BLECore

/// A laid-out service: its declaration handle up to its end group handle.
public struct ServiceGroup: Hashable, Sendable {
    public let uuid: BluetoothUUID
    public let kind: GATTServiceKind
    public let handles: ClosedRange<UInt16>

    public var startHandle: UInt16 { handles.lowerBound }
    public var endGroupHandle: UInt16 { handles.upperBound }
}

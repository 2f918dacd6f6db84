import ATT
import BLECore
import GATT

/// A service found on the peer.
public struct RemoteService: Sendable, Hashable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    /// The service declaration's handle through its End Group Handle.
    public var handles: ClosedRange<UInt16>
    public var isPrimary: Bool
    /// Filled in by `discoverIncludedServices(of:)`; empty until then.
    public var includedServices: [RemoteService]

    public init(uuid: BluetoothUUID, handles: ClosedRange<UInt16>, isPrimary: Bool = true, includedServices: [RemoteService] = []) {
        self.uuid = uuid
        self.handles = handles
        self.isPrimary = isPrimary
        self.includedServices = includedServices
    }

    public var description: String { "service \(uuid) \(handles.lowerBound.hexLiteral)…\(handles.upperBound.hexLiteral)" }
}

/// A characteristic declaration found on the peer.
public struct RemoteCharacteristic: Sendable, Hashable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    public var declarationHandle: UInt16
    public var valueHandle: UInt16
    public var properties: CharacteristicProperties
    /// The last handle that belongs to the characteristic: its descriptors lie in valueHandle+1…endHandle.
    public var endHandle: UInt16
    public var service: RemoteService

    public init(uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16, properties: CharacteristicProperties,
                endHandle: UInt16, service: RemoteService) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
        self.service = service
    }

    var handles: ClosedRange<UInt16> { declarationHandle...max(declarationHandle, endHandle) }

    public var description: String { "characteristic \(uuid) value \(valueHandle.hexLiteral)" }
}

/// A characteristic descriptor found on the peer.
public struct RemoteDescriptor: Sendable, Hashable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    public var handle: UInt16

    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }

    public var description: String { "descriptor \(uuid) at \(handle.hexLiteral)" }
}

/// A value the server pushed.
public struct ValueUpdate: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case notification
        /// Already confirmed by the client when it is delivered.
        case indication
    }

    public var valueHandle: UInt16
    public var value: [UInt8]
    public var kind: Kind

    public init(valueHandle: UInt16, value: [UInt8], kind: Kind) {
        self.valueHandle = valueHandle
        self.value = value
        self.kind = kind
    }
}

/// Things that happen to the client outside any one procedure.
public enum GATTClientEvent: Sendable, Hashable {
    /// The server indicated Service Changed for this range: cached discovery results and
    /// subscriptions inside it were dropped; rediscover the services there.
    case servicesChanged(ClosedRange<UInt16>)
    /// A request got no answer within the transaction timeout; the bearer is unusable and the link
    /// should be disconnected (Core Vol 3 Part F 3.3.3).
    case transactionTimedOut(ATTOpcode)
    /// A PDU from the server could not be used (it failed the outstanding request, if any).
    case malformedPDU(String)
    /// The `updates` buffer was full and an indication's value was discarded (it was confirmed).
    case indicationDropped(valueHandle: UInt16)
}

import BLECore
import HCI

/// A live LE connection as the layers above see it. Timing in controller units
/// (interval 1.25 ms, supervision timeout 10 ms).
public struct LEConnection: Sendable, Equatable, CustomStringConvertible {
    public let handle: UInt16
    public let role: HCIRole
    public let peer: DeviceAddress
    public internal(set) var interval: UInt16
    public internal(set) var latency: UInt16
    public internal(set) var supervisionTimeout: UInt16
    public internal(set) var maxTxOctets: UInt16 = 27
    public internal(set) var maxRxOctets: UInt16 = 27
    public internal(set) var encrypted = false
    public internal(set) var encryptionKeySize: UInt8? = nil
    public internal(set) var remoteVersion: HCIReadRemoteVersionCompleteEvent? = nil

    init(_ event: LEConnectionCompleteEvent) {
        handle = event.handle
        role = event.role
        peer = event.peer
        interval = event.interval
        latency = event.latency
        supervisionTimeout = event.supervisionTimeout
    }

    public var intervalMilliseconds: Double { Double(interval) * 1.25 }

    public var description: String {
        "handle 0x\(String(handle, radix: 16)) peer \(peer) interval \(intervalMilliseconds) ms latency \(latency) timeout \(Int(supervisionTimeout) * 10) ms"
    }
}

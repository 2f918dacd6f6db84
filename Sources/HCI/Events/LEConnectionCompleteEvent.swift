import BLECore

/// The role the local controller plays on a connection.
public enum HCIRole: UInt8, Sendable, CustomStringConvertible {
    case central = 0x00
    case peripheral = 0x01
    public var description: String { self == .central ? "central" : "peripheral" }
}

/// LE Connection Complete (0x01) and LE Enhanced Connection Complete v1 (0x0A) / v2 (0x29), one shape for all.
/// Timing is in controller units: interval 1.25 ms, supervision timeout 10 ms.
public struct LEConnectionCompleteEvent: Sendable, Equatable {
    public enum Form: Sendable, Equatable {
        case legacy
        case enhanced
        case enhancedV2(advertisingHandle: UInt8, syncHandle: UInt16)
    }

    public var form: Form
    public var status: HCIStatus
    public var handle: UInt16
    public var role: HCIRole
    public var peer: DeviceAddress
    public var localResolvablePrivateAddress: BluetoothAddress
    public var peerResolvablePrivateAddress: BluetoothAddress
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16
    public var centralClockAccuracy: UInt8

    public init(form: Form = .enhanced, status: HCIStatus = .success, handle: UInt16, role: HCIRole, peer: DeviceAddress,
                localResolvablePrivateAddress: BluetoothAddress = .zero, peerResolvablePrivateAddress: BluetoothAddress = .zero,
                interval: UInt16, latency: UInt16, supervisionTimeout: UInt16, centralClockAccuracy: UInt8 = 0) {
        self.form = form
        self.status = status
        self.handle = handle
        self.role = role
        self.peer = peer
        self.localResolvablePrivateAddress = localResolvablePrivateAddress
        self.peerResolvablePrivateAddress = peerResolvablePrivateAddress
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.centralClockAccuracy = centralClockAccuracy
    }

    public var subeventCode: UInt8 {
        switch form {
        case .legacy: return LESubeventCode.connectionComplete
        case .enhanced: return LESubeventCode.enhancedConnectionComplete
        case .enhancedV2: return LESubeventCode.enhancedConnectionCompleteV2
        }
    }

    public init(decoding reader: inout ByteReader, subevent: UInt8) throws(HCIDecodingError) {
        let what = "LE Connection Complete (subevent 0x\(String(subevent, radix: 16)))"
        let head = try reader.decoding(what) { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readUInt16(), try r.readUInt8(), try r.readUInt8(), try BluetoothAddress(reading: &r))
        }
        // A failed connection may carry a role or address type we don't know; keep it decodable.
        let role = HCIRole(rawValue: head.2) ?? .peripheral
        let peerType = AddressType(rawValue: head.3) ?? .randomDevice
        var localRPA = BluetoothAddress.zero, peerRPA = BluetoothAddress.zero
        if subevent != LESubeventCode.connectionComplete {
            (localRPA, peerRPA) = try reader.decoding(what) { r throws(ByteReaderError) in
                (try BluetoothAddress(reading: &r), try BluetoothAddress(reading: &r))
            }
        }
        let timing = try reader.decoding(what) { r throws(ByteReaderError) in
            (try r.readUInt16(), try r.readUInt16(), try r.readUInt16(), try r.readUInt8())
        }
        let form: Form
        switch subevent {
        case LESubeventCode.connectionComplete: form = .legacy
        case LESubeventCode.enhancedConnectionComplete: form = .enhanced
        default:
            let tail = try reader.decoding(what) { r throws(ByteReaderError) in (try r.readUInt8(), try r.readUInt16()) }
            form = .enhancedV2(advertisingHandle: tail.0, syncHandle: tail.1)
        }
        self.init(form: form, status: HCIStatus(rawValue: head.0), handle: head.1 & 0x0FFF, role: role,
                  peer: DeviceAddress(head.4, type: peerType), localResolvablePrivateAddress: localRPA,
                  peerResolvablePrivateAddress: peerRPA, interval: timing.0, latency: timing.1,
                  supervisionTimeout: timing.2, centralClockAccuracy: timing.3)
    }

    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(handle)
        writer.append(role.rawValue)
        writer.append(peer.type.rawValue)
        peer.address.write(to: &writer)
        if form != .legacy {
            localResolvablePrivateAddress.write(to: &writer)
            peerResolvablePrivateAddress.write(to: &writer)
        }
        writer.append(interval)
        writer.append(latency)
        writer.append(supervisionTimeout)
        writer.append(centralClockAccuracy)
        if case let .enhancedV2(advertisingHandle, syncHandle) = form {
            writer.append(advertisingHandle)
            writer.append(syncHandle)
        }
    }
}

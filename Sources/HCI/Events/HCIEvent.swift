import BLECore

/// LE Meta subevents the host acts on; the rest are kept raw and ignored.
public enum LEMetaEvent: Sendable, Equatable {
    case connectionComplete(LEConnectionCompleteEvent)
    case advertisingReport(LEAdvertisingReportEvent)
    case connectionUpdateComplete(LEConnectionUpdateCompleteEvent)
    case longTermKeyRequest(LELongTermKeyRequestEvent)
    case remoteConnectionParameterRequest(LERemoteConnectionParameterRequestEvent)
    case dataLengthChange(LEDataLengthChangeEvent)
    case unknown(subevent: UInt8, parameters: [UInt8])
}

/// An HCI event from the controller. Decoding is total: malformed events throw, unknown ones are `.unknown`.
public enum HCIEvent: Sendable, Equatable {
    case commandComplete(HCICommandCompleteEvent)
    case commandStatus(HCICommandStatusEvent)
    case disconnectionComplete(HCIDisconnectionCompleteEvent)
    case encryptionChange(HCIEncryptionChangeEvent)
    case encryptionKeyRefreshComplete(HCIEncryptionKeyRefreshCompleteEvent)
    case readRemoteVersionComplete(HCIReadRemoteVersionCompleteEvent)
    case numberOfCompletedPackets(HCINumberOfCompletedPacketsEvent)
    case hardwareError(code: UInt8)
    case dataBufferOverflow(linkType: UInt8)
    case le(LEMetaEvent)
    case unknown(code: UInt8, parameters: [UInt8])

    /// Decodes an event packet body (event code, length, parameters), checking the length field.
    public init(body: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var reader = ByteReader(body)
        let (code, length) = try reader.decoding("event header") { r throws(ByteReaderError) in (try r.readUInt8(), try r.readUInt8()) }
        guard reader.remainingCount == Int(length) else {
            throw .unexpectedLength("event 0x\(String(code, radix: 16))", expected: Int(length), actual: reader.remainingCount)
        }
        try self.init(code: code, parameters: &reader)
    }

    public init(code: UInt8, parameters reader: inout ByteReader) throws(HCIDecodingError) {
        switch code {
        case HCIEventCode.commandComplete: self = .commandComplete(try .init(decoding: &reader))
        case HCIEventCode.commandStatus: self = .commandStatus(try .init(decoding: &reader))
        case HCIEventCode.disconnectionComplete: self = .disconnectionComplete(try .init(decoding: &reader))
        case HCIEventCode.encryptionChange:
            self = .encryptionChange(try .init(decoding: &reader, version2: false))
        case HCIEventCode.encryptionChangeV2:
            self = .encryptionChange(try .init(decoding: &reader, version2: true))
        case HCIEventCode.encryptionKeyRefreshComplete: self = .encryptionKeyRefreshComplete(try .init(decoding: &reader))
        case HCIEventCode.readRemoteVersionInformationComplete: self = .readRemoteVersionComplete(try .init(decoding: &reader))
        case HCIEventCode.numberOfCompletedPackets: self = .numberOfCompletedPackets(try .init(decoding: &reader))
        case HCIEventCode.hardwareError:
            self = .hardwareError(code: try reader.decoding("Hardware Error") { r throws(ByteReaderError) in try r.readUInt8() })
        case HCIEventCode.dataBufferOverflow:
            self = .dataBufferOverflow(linkType: try reader.decoding("Data Buffer Overflow") { r throws(ByteReaderError) in try r.readUInt8() })
        case HCIEventCode.leMeta: self = .le(try LEMetaEvent(decoding: &reader))
        default: self = .unknown(code: code, parameters: reader.readRemaining())
        }
    }

    public var code: UInt8 {
        switch self {
        case .commandComplete: return HCIEventCode.commandComplete
        case .commandStatus: return HCIEventCode.commandStatus
        case .disconnectionComplete: return HCIEventCode.disconnectionComplete
        case let .encryptionChange(event): return event.keySize == nil ? HCIEventCode.encryptionChange : HCIEventCode.encryptionChangeV2
        case .encryptionKeyRefreshComplete: return HCIEventCode.encryptionKeyRefreshComplete
        case .readRemoteVersionComplete: return HCIEventCode.readRemoteVersionInformationComplete
        case .numberOfCompletedPackets: return HCIEventCode.numberOfCompletedPackets
        case .hardwareError: return HCIEventCode.hardwareError
        case .dataBufferOverflow: return HCIEventCode.dataBufferOverflow
        case .le: return HCIEventCode.leMeta
        case let .unknown(code, _): return code
        }
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        switch self {
        case let .commandComplete(event): event.encode(into: &writer)
        case let .commandStatus(event): event.encode(into: &writer)
        case let .disconnectionComplete(event): event.encode(into: &writer)
        case let .encryptionChange(event): event.encode(into: &writer)
        case let .encryptionKeyRefreshComplete(event): event.encode(into: &writer)
        case let .readRemoteVersionComplete(event): event.encode(into: &writer)
        case let .numberOfCompletedPackets(event): event.encode(into: &writer)
        case let .hardwareError(code): writer.append(code)
        case let .dataBufferOverflow(linkType): writer.append(linkType)
        case let .le(event): event.encode(into: &writer)
        case let .unknown(_, parameters): writer.append(contentsOf: parameters)
        }
    }

    /// The complete H4 frame, as a controller would send it.
    public var packet: HCIPacket {
        var writer = ByteWriter(capacity: 48)
        writer.append(HCIPacketType.event.rawValue)
        writer.append(code)
        writer.append(UInt8(0))
        encodeParameters(into: &writer)
        var bytes = writer.bytes
        bytes[2] = UInt8(truncatingIfNeeded: bytes.count - 3)
        return HCIPacket(h4Bytes: bytes) ?? HCIPacket(type: .event, body: Array(bytes.dropFirst()))
    }
}

extension LEMetaEvent {
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let subevent = try reader.decoding("LE Meta") { r throws(ByteReaderError) in try r.readUInt8() }
        switch subevent {
        case LESubeventCode.connectionComplete, LESubeventCode.enhancedConnectionComplete, LESubeventCode.enhancedConnectionCompleteV2:
            self = .connectionComplete(try LEConnectionCompleteEvent(decoding: &reader, subevent: subevent))
        case LESubeventCode.advertisingReport: self = .advertisingReport(try .init(decoding: &reader))
        case LESubeventCode.connectionUpdateComplete: self = .connectionUpdateComplete(try .init(decoding: &reader))
        case LESubeventCode.longTermKeyRequest: self = .longTermKeyRequest(try .init(decoding: &reader))
        case LESubeventCode.remoteConnectionParameterRequest: self = .remoteConnectionParameterRequest(try .init(decoding: &reader))
        case LESubeventCode.dataLengthChange: self = .dataLengthChange(try .init(decoding: &reader))
        default: self = .unknown(subevent: subevent, parameters: reader.readRemaining())
        }
    }

    public var subeventCode: UInt8 {
        switch self {
        case let .connectionComplete(event): return event.subeventCode
        case .advertisingReport: return LESubeventCode.advertisingReport
        case .connectionUpdateComplete: return LESubeventCode.connectionUpdateComplete
        case .longTermKeyRequest: return LESubeventCode.longTermKeyRequest
        case .remoteConnectionParameterRequest: return LESubeventCode.remoteConnectionParameterRequest
        case .dataLengthChange: return LESubeventCode.dataLengthChange
        case let .unknown(subevent, _): return subevent
        }
    }

    public func encode(into writer: inout ByteWriter) {
        writer.append(subeventCode)
        switch self {
        case let .connectionComplete(event): event.encode(into: &writer)
        case let .advertisingReport(event): event.encode(into: &writer)
        case let .connectionUpdateComplete(event): event.encode(into: &writer)
        case let .longTermKeyRequest(event): event.encode(into: &writer)
        case let .remoteConnectionParameterRequest(event): event.encode(into: &writer)
        case let .dataLengthChange(event): event.encode(into: &writer)
        case let .unknown(_, parameters): writer.append(contentsOf: parameters)
        }
    }
}

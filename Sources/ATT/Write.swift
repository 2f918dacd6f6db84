import BLECore

/// The 12-octet Authentication Signature of a Signed Write Command: SignCounter then the 64
/// most significant bits of the AES-CMAC, both little-endian on the air (3.3.1, Vol 3 Part H 2.4.5).
public struct ATTAuthenticationSignature: Hashable, Sendable {
    public static let length = 12

    public var signCounter: UInt32
    public var mac: UInt64

    public init(signCounter: UInt32, mac: UInt64) {
        self.signCounter = signCounter
        self.mac = mac
    }

    public var bytes: [UInt8] {
        var writer = ByteWriter(capacity: Self.length)
        writer.append(signCounter)
        writer.append(mac)
        return writer.bytes
    }
}

// Write Request/Response, Write Command, Signed Write Command (3.4.5).
extension ATTPDU {
    static func decodeWrite(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        switch r.opcode {
        case .writeRequest:
            let handle = try r.uint16()
            return .writeRequest(handle: handle, value: r.remaining())
        case .writeCommand:
            let handle = try r.uint16()
            return .writeCommand(handle: handle, value: r.remaining())
        case .signedWriteCommand:
            let handle = try r.uint16()
            let valueLength = r.remainingCount - ATTAuthenticationSignature.length
            guard valueLength >= 0 else {
                throw r.malformed("\(r.remainingCount) octet(s) after the handle cannot hold the 12-octet signature")
            }
            let value = try r.bytes(valueLength)
            let signature = ATTAuthenticationSignature(signCounter: try r.uint32(), mac: try r.uint64())
            return .signedWriteCommand(handle: handle, value: value, signature: signature)
        default:
            try r.finish(fixedParameterLength: 0)
            return .writeResponse
        }
    }

    func encodeWrite(into writer: inout ByteWriter) {
        switch self {
        case let .writeRequest(handle, value), let .writeCommand(handle, value):
            writer.append(handle)
            writer.append(contentsOf: value)
        case let .signedWriteCommand(handle, value, signature):
            writer.append(handle)
            writer.append(contentsOf: value)
            writer.append(contentsOf: signature.bytes)
        default:
            break
        }
    }
}

import BLECore

/// Why bytes on the SMP channel are not a command we can act on.
public enum SMPDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case unknownCode(UInt8)
    case wrongLength(SMPOpcode, expected: Int, actual: Int)
    case invalidParameter(String)

    /// The Pairing Failed reason this error is answered with (Vol 3 Part H 3.5.5).
    public var failureReason: PairingFailureReason {
        switch self {
        case .empty, .unknownCode: return .commandNotSupported
        case .wrongLength, .invalidParameter: return .invalidParameters
        }
    }

    public var description: String {
        switch self {
        case .empty: return "empty SMP PDU"
        case let .unknownCode(code): return "unknown SMP command 0x\(String(code, radix: 16))"
        case let .wrongLength(opcode, expected, actual):
            return "SMP \(opcode) has \(actual) parameter octet(s); it takes \(expected)"
        case let .invalidParameter(what): return "SMP command with invalid \(what)"
        }
    }
}

/// One Security Manager command (Core Vol 3 Part H 3.5, 3.6). Multi-octet values are kept in
/// wire order (least significant octet first), as the toolbox functions take them.
public enum SMPCommand: Sendable, Equatable {
    case pairingRequest(PairingFeatures)
    case pairingResponse(PairingFeatures)
    case pairingConfirm([UInt8])
    case pairingRandom([UInt8])
    case pairingFailed(PairingFailureReason)
    case encryptionInformation(ltk: [UInt8])
    case centralIdentification(ediv: UInt16, rand: UInt64)
    case identityInformation(irk: [UInt8])
    case identityAddressInformation(DeviceAddress)
    case signingInformation(csrk: [UInt8])
    case securityRequest(AuthenticationRequirements)
    case pairingPublicKey(x: [UInt8], y: [UInt8])
    case pairingDHKeyCheck([UInt8])
    case keypressNotification(UInt8)

    /// Decodes one PDU; total: any byte string gives a command or a typed error.
    public init(decoding pdu: [UInt8]) throws(SMPDecodingError) {
        guard let code = pdu.first else { throw .empty }
        guard let opcode = SMPOpcode(rawValue: code) else { throw .unknownCode(code) }
        let parameters = pdu[1...]
        guard parameters.count == opcode.parameterLength else {
            throw .wrongLength(opcode, expected: opcode.parameterLength, actual: parameters.count)
        }
        let bytes = Array(parameters)
        switch opcode {
        case .pairingRequest: self = .pairingRequest(try PairingFeatures(parameters: parameters))
        case .pairingResponse: self = .pairingResponse(try PairingFeatures(parameters: parameters))
        case .pairingConfirm: self = .pairingConfirm(bytes)
        case .pairingRandom: self = .pairingRandom(bytes)
        case .pairingFailed: self = .pairingFailed(PairingFailureReason(code: bytes[0]))
        case .encryptionInformation: self = .encryptionInformation(ltk: bytes)
        case .centralIdentification:
            // Length checked above: 2 + 8 octets.
            let ediv = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
            let rand = bytes[2..<10].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .centralIdentification(ediv: ediv, rand: rand)
        case .identityInformation: self = .identityInformation(irk: bytes)
        case .identityAddressInformation:
            guard bytes[0] <= 1 else { throw .invalidParameter("identity address type 0x\(String(bytes[0], radix: 16))") }
            let address = BluetoothAddress(littleEndian: Array(bytes[1...6]))
            self = .identityAddressInformation(DeviceAddress(address, type: bytes[0] == 0 ? .publicDevice : .randomDevice))
        case .signingInformation: self = .signingInformation(csrk: bytes)
        case .securityRequest: self = .securityRequest(AuthenticationRequirements(rawValue: bytes[0] & 0x3D))
        case .pairingPublicKey: self = .pairingPublicKey(x: Array(bytes[0..<32]), y: Array(bytes[32..<64]))
        case .pairingDHKeyCheck: self = .pairingDHKeyCheck(bytes)
        case .keypressNotification:
            guard bytes[0] <= 4 else { throw .invalidParameter("keypress notification type \(bytes[0])") }
            self = .keypressNotification(bytes[0])
        }
    }

    public var opcode: SMPOpcode {
        switch self {
        case .pairingRequest: return .pairingRequest
        case .pairingResponse: return .pairingResponse
        case .pairingConfirm: return .pairingConfirm
        case .pairingRandom: return .pairingRandom
        case .pairingFailed: return .pairingFailed
        case .encryptionInformation: return .encryptionInformation
        case .centralIdentification: return .centralIdentification
        case .identityInformation: return .identityInformation
        case .identityAddressInformation: return .identityAddressInformation
        case .signingInformation: return .signingInformation
        case .securityRequest: return .securityRequest
        case .pairingPublicKey: return .pairingPublicKey
        case .pairingDHKeyCheck: return .pairingDHKeyCheck
        case .keypressNotification: return .keypressNotification
        }
    }

    public var encoded: [UInt8] {
        var out: [UInt8] = [opcode.rawValue]
        switch self {
        case let .pairingRequest(features), let .pairingResponse(features): out += features.parameters
        case let .pairingConfirm(value), let .pairingRandom(value), let .pairingDHKeyCheck(value): out += value
        case let .pairingFailed(reason): out.append(reason.code)
        case let .encryptionInformation(key), let .identityInformation(key), let .signingInformation(key): out += key
        case let .centralIdentification(ediv, rand):
            var writer = ByteWriter()
            writer.append(ediv)
            writer.append(rand)
            out += writer.bytes
        case let .identityAddressInformation(address):
            out.append(address.type.isRandom ? 1 : 0)
            out += address.address.littleEndianBytes
        case let .securityRequest(requirements): out.append(requirements.rawValue)
        case let .pairingPublicKey(x, y): out += x + y
        case let .keypressNotification(type): out.append(type)
        }
        return out
    }
}

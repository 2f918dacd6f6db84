import FoundationEssentials

/// JSON-lines encoding and total request parsing shared by server and client.
enum ControlCodec {
    /// Non-finite numbers travel as strings so one NaN from a sensor cannot make a whole status unencodable.
    private static let floatEncoding = JSONEncoder.NonConformingFloatEncodingStrategy.convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    private static let floatDecoding = JSONDecoder.NonConformingFloatDecodingStrategy.convertFromString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")

    /// Compact, sorted keys (stable output for tests and diffs), slashes unescaped (paths in errors).
    static func lineEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = floatEncoding
        // Bond dates; whole seconds are all a person or a script needs.
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func prettyEncoder() -> JSONEncoder {
        let encoder = lineEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = floatDecoding
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// The message as one line, newline included.
    static func line(_ message: some Encodable) throws -> [UInt8] {
        var bytes = [UInt8](try lineEncoder().encode(message))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// An error reply line; the reply has only strings and scalars, so encoding cannot fail in practice,
    /// and a fixed fallback keeps even that case a valid reply.
    static func errorLine(_ message: String) -> [UInt8] {
        (try? line(ControlReply.failure(message)))
            ?? Array("{\"ok\":false,\"version\":\(ControlProtocol.version)}\n".utf8)
    }

    /// A request's fields, all optional so any JSON object decodes and the error can say what is
    /// missing rather than "malformed". Parameters of a wrong type are kept as such, to be named.
    private struct RequestEnvelope: Decodable {
        var version: Int?
        var command: String?
        var address: Parameter<String>
        var addressType: Parameter<String>
        var seconds: Parameter<Int>

        private enum CodingKeys: String, CodingKey { case version, command, address, addressType, seconds }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            version = try container.decodeIfPresent(Int.self, forKey: .version)
            command = try container.decodeIfPresent(String.self, forKey: .command)
            address = Parameter(container, .address)
            addressType = Parameter(container, .addressType)
            seconds = Parameter(container, .seconds)
        }
    }

    private enum Parameter<Value: Decodable> {
        case absent
        case value(Value)
        case wrongType

        init<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) {
            if !container.contains(key) || ((try? container.decodeNil(forKey: key)) ?? false) {
                self = .absent
            } else if let value = try? container.decode(Value.self, forKey: key) {
                self = .value(value)
            } else {
                self = .wrongType
            }
        }
    }

    /// Parses one request line (without its newline). Total: any bytes give a request or a message for the client.
    static func parseRequest(_ line: some Collection<UInt8>) -> Result<ParsedRequest, RequestRejection> {
        let envelope: RequestEnvelope
        do {
            envelope = try decoder().decode(RequestEnvelope.self, from: Data(line))
        } catch {
            return .failure(RequestRejection(
                "malformed request: expected one JSON object per line like {\"version\":\(ControlProtocol.version),\"command\":\"status\"}"))
        }
        guard let version = envelope.version else {
            return .failure(RequestRejection("request has no \"version\"; this blesensord speaks control protocol version \(ControlProtocol.version)"))
        }
        guard version == ControlProtocol.version else {
            return .failure(RequestRejection(
                "unsupported control protocol version \(version); this blesensord speaks version \(ControlProtocol.version): install matching blesensor and blesensord"))
        }
        guard let name = envelope.command else {
            return .failure(RequestRejection("request has no \"command\"; known: \(ControlCommand.knownList)"))
        }
        guard let command = ControlCommand(rawValue: name) else {
            return .failure(RequestRejection("unknown command '\(name)'; known: \(ControlCommand.knownList)"))
        }
        switch command {
        case .status: return .success(.status)
        case .watchSensors: return .success(.watchSensors)
        case .bonds: return .success(.bonds)
        case .removeBond: return removeBond(envelope)
        case .openPairingWindow: return openPairingWindow(envelope)
        case .pairing: return .success(.pairing)
        case .watchPairing: return .success(.watchPairing)
        }
    }

    private static func removeBond(_ envelope: RequestEnvelope) -> Result<ParsedRequest, RequestRejection> {
        let usage = "remove-bond needs \"address\": a string like \"AA:BB:CC:DD:EE:FF\" or \"AA:BB:CC:DD:EE:FF (public)\""
        guard case .value(let text) = envelope.address else { return .failure(RequestRejection(usage)) }
        let type: String?
        switch envelope.addressType {
        case .absent: type = nil
        case .value(let value): type = value
        case .wrongType: return .failure(RequestRejection("remove-bond's \"addressType\" must be \"public\" or \"random\""))
        }
        return BondAddress.parse(text, type: type)
            .map { .removeBond($0) }
            .mapError { RequestRejection("remove-bond: \($0.message)") }
    }

    private static func openPairingWindow(_ envelope: RequestEnvelope) -> Result<ParsedRequest, RequestRejection> {
        let range = ControlProtocol.pairingWindowSeconds
        guard case .value(let seconds) = envelope.seconds, range.contains(seconds) else {
            return .failure(RequestRejection(
                "open-pairing-window needs \"seconds\": a whole number from \(range.lowerBound) to \(range.upperBound)"))
        }
        return .success(.openPairingWindow(seconds: seconds))
    }
}

/// A request the server understood, with its checked parameters.
enum ParsedRequest: Equatable, Sendable {
    case status
    case watchSensors
    case bonds
    case removeBond(BondAddress)
    case openPairingWindow(seconds: Int)
    case pairing
    case watchPairing

    /// What the request does, for the refusal, when only an administrator may ask for it.
    var administration: String? {
        switch self {
        case .status, .watchSensors, .bonds: nil
        case .removeBond: "removing a bond"
        case .openPairingWindow: "opening the pairing window"
        case .pairing: "seeing the passkey"
        case .watchPairing: "following pairing (it shows passkeys)"
        }
    }
}

/// Why a request line was refused; `message` is sent to the client as the error reply.
struct RequestRejection: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

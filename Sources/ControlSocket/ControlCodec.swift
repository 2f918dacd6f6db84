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

    /// Only the fields needed to judge a request, all optional, so any JSON object decodes and the
    /// error can say what is missing rather than "malformed".
    private struct RequestEnvelope: Decodable {
        var version: Int?
        var command: String?
    }

    /// Parses one request line (without its newline). Total: any bytes give a command or a message for the client.
    static func parseRequest(_ line: some Collection<UInt8>) -> Result<ControlCommand, RequestRejection> {
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
        return .success(command)
    }
}

/// Why a request line was refused; `message` is sent to the client as the error reply.
struct RequestRejection: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

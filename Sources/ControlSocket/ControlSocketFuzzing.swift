import FoundationEssentials

/// For the `control-socket` fuzz target: the bytes a client sends, cut into lines as the server
/// cuts them (LF, an optional CR before it, at most `maxRequestBytes`), each parsed as a request;
/// and each line decoded as the replies, sensor updates and pairing events a client reads.
/// Parsing is total; an accepted request, encoded again, parses to the same request.
@_spi(Fuzzing) public enum ControlSocketFuzzing {
    /// Returns a description of the first broken invariant, nil when all held.
    public static func run(_ bytes: [UInt8]) -> String? {
        for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.count <= ControlProtocol.maxRequestBytes else { continue }
            if case let .success(request) = ControlCodec.parseRequest(line) {
                guard let encoded = try? ControlCodec.line(wireRequest(request)) else { return "\(request) cannot be encoded" }
                let again = ControlCodec.parseRequest(encoded.dropLast())
                guard again == .success(request) else { return "\(request) parses back as \(again)" }
            }
            let decoder = ControlCodec.decoder(), data = Data(line)
            _ = try? decoder.decode(ControlReply.self, from: data)
            _ = try? decoder.decode(SensorUpdateMessage.self, from: data)
            _ = try? decoder.decode(PairingEventMessage.self, from: data)
        }
        return nil
    }

    /// The request line a client sends for `request`.
    static func wireRequest(_ request: ParsedRequest) -> ControlRequest {
        switch request {
        case .status: ControlRequest(.status)
        case .watchSensors: ControlRequest(.watchSensors)
        case .bonds: ControlRequest(.bonds)
        case let .removeBond(address):
            ControlRequest(command: ControlCommand.removeBond.rawValue, address: address.address, addressType: address.kind?.rawValue)
        case let .openPairingWindow(seconds): ControlRequest(command: ControlCommand.openPairingWindow.rawValue, seconds: seconds)
        case .pairing: ControlRequest(.pairing)
        case .watchPairing: ControlRequest(.watchPairing)
        }
    }
}

import HCI

extension TransportSpecification {
    /// Parses `tcp:HOST:PORT`, `hci:N`, `uart:PATH[?baud=N][&flow=on|off]` or `virtual`.
    public init(parsing text: String) throws(HCITransportError) {
        func invalid(_ reason: String) -> HCITransportError { .invalidSpecification(text, reason: reason) }

        guard !text.isEmpty else { throw invalid("the transport is empty") }
        if text == "virtual" {
            self = .virtual
            return
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw invalid("unknown transport '\(text)'")
        }
        let scheme = String(text[..<colon])
        let rest = String(text[text.index(after: colon)...])
        switch scheme {
        case "tcp":
            self = try Self.parseTCP(rest, invalid: invalid)
        case "hci":
            self = try Self.parseHCI(rest, invalid: invalid)
        case "uart":
            self = try Self.parseUART(rest, invalid: invalid)
        default:
            throw invalid("unknown scheme '\(scheme)'")
        }
    }

    private static func parseTCP(
        _ rest: String, invalid: (String) -> HCITransportError
    ) throws(HCITransportError) -> TransportSpecification {
        let host: Substring
        let portText: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw invalid("missing ']' after the IPv6 address; write tcp:[::1]:PORT")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let afterBracket = rest[rest.index(after: close)...]
            guard afterBracket.hasPrefix(":") else { throw invalid("missing port: expected tcp:[HOST]:PORT") }
            portText = afterBracket.dropFirst()
        } else {
            guard let separator = rest.lastIndex(of: ":") else {
                throw invalid("missing port: expected tcp:HOST:PORT")
            }
            host = rest[..<separator]
            portText = rest[rest.index(after: separator)...]
        }
        guard !host.isEmpty else { throw invalid("missing host: expected tcp:HOST:PORT") }
        guard !portText.isEmpty else { throw invalid("missing port: expected tcp:HOST:PORT") }
        guard portText.allSatisfy(\.isASCIIDigit) else { throw invalid("port '\(portText)' is not a number") }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw invalid("port \(portText) is out of range 1-65535")
        }
        return .tcp(host: String(host), port: UInt16(port))
    }

    private static func parseHCI(
        _ rest: String, invalid: (String) -> HCITransportError
    ) throws(HCITransportError) -> TransportSpecification {
        guard !rest.isEmpty else { throw invalid("missing adapter index: expected hci:N, e.g. hci:0") }
        guard rest.allSatisfy(\.isASCIIDigit) else {
            throw invalid("adapter index '\(rest)' is not a number: expected hci:N, e.g. hci:0")
        }
        guard let index = UInt16(rest) else { throw invalid("adapter index \(rest) is out of range 0-65535") }
        return .hciUserChannel(index: index)
    }

    private static func parseUART(
        _ rest: String, invalid: (String) -> HCITransportError
    ) throws(HCITransportError) -> TransportSpecification {
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? ""
        guard !path.isEmpty else { throw invalid("missing device path: expected uart:/dev/ttyX") }
        guard path.hasPrefix("/") else {
            throw invalid("device path '\(path)' must be absolute, e.g. uart:/dev/ttyAMA0")
        }
        // A device path is one word of printable ASCII: it also goes into the unit's DeviceAllow=.
        guard path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "%" && $0 != "\\" }) else {
            throw invalid("device path '\(path.debugDescription.dropFirst().dropLast())' has spaces, control characters, '%' or '\\'; use the /dev path as ls /dev shows it")
        }
        var baudRate = defaultBaudRate
        var flowControl = defaultFlowControl
        var seen: Set<Substring> = []
        if parts.count == 2 {
            for option in parts[1].split(separator: "&", omittingEmptySubsequences: false) {
                let pair = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = pair[0]
                guard !key.isEmpty else { throw invalid("empty option in '\(parts[1])'") }
                guard seen.insert(key).inserted else { throw invalid("option '\(key)' is given twice") }
                guard pair.count == 2, !pair[1].isEmpty else { throw invalid("option '\(key)' needs a value") }
                let value = pair[1]
                switch key {
                case "baud":
                    guard value.allSatisfy(\.isASCIIDigit), let rate = UInt32(value) else {
                        throw invalid("baud '\(value)' is not a number")
                    }
                    guard SerialBaudRates.isSupported(rate) else {
                        throw invalid(
                            "baud rate \(rate) is not supported; supported rates: \(SerialBaudRates.listDescription)")
                    }
                    baudRate = rate
                case "flow":
                    switch value {
                    case "on": flowControl = true
                    case "off": flowControl = false
                    default: throw invalid("flow '\(value)' must be on or off")
                    }
                default:
                    throw invalid("unknown option '\(key)': supported options are baud and flow")
                }
            }
        }
        return .uart(path: path, baudRate: baudRate, flowControl: flowControl)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

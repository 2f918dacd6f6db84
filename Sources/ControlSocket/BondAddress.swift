/// A bond's identity as a person types it: `AA:BB:CC:DD:EE:FF`, optionally ` (public)` or
/// ` (random)`, or the type given on its own (`--type`, the request's `addressType`).
/// Parsed here, without BLECore, so the CLI refuses a typo before it connects and the daemon
/// applies exactly the same rules to a request.
public struct BondAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case `public`
        case random
    }

    /// Upper-case, colon-separated, most significant byte first.
    public var address: String
    /// nil when not given: the daemon then accepts the one bond with this address, whatever its type.
    public var kind: Kind?

    public init(address: String, kind: Kind?) {
        self.address = address
        self.kind = kind
    }

    public var description: String { kind.map { "\(address) (\($0.rawValue))" } ?? address }

    /// Total: any text gives an address or a message saying what a valid one looks like.
    public static func parse(_ text: String, type: String? = nil) -> Result<BondAddress, ControlFailure> {
        var rest = Substring(text).trimmingBlanks()
        var inline: Kind?
        if rest.hasSuffix(")"), let open = rest.lastIndex(of: "(") {
            let name = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)].trimmingBlanks()
            guard let kind = Kind(rawValue: name.lowercased()) else {
                return .failure(ControlFailure("'\(name)' in '\(text)' is not an address type: use (public) or (random)"))
            }
            inline = kind
            rest = rest[..<open].trimmingBlanks()
        }
        guard let address = normalized(rest) else {
            return .failure(ControlFailure("'\(text)' is not a Bluetooth address: use six hex byte pairs like AA:BB:CC:DD:EE:FF"))
        }
        var explicit: Kind?
        if let type {
            guard let kind = Kind(rawValue: type.trimmingBlanks().lowercased()) else {
                return .failure(ControlFailure("'\(type)' is not an address type: use public or random"))
            }
            explicit = kind
        }
        if let inline, let explicit, inline != explicit {
            return .failure(ControlFailure("'\(text)' says \(inline.rawValue) but the type given is \(explicit.rawValue); give one of them"))
        }
        return .success(BondAddress(address: address, kind: inline ?? explicit))
    }

    /// `aa:bb:cc:dd:ee:ff` → `AA:BB:CC:DD:EE:FF`; nil unless exactly six pairs of ASCII hex digits.
    private static func normalized(_ text: Substring) -> String? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6,
              parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isHexDigit } }) else { return nil }
        return parts.map { $0.uppercased() }.joined(separator: ":")
    }
}

/// A request the daemon could not carry out, with the message the client shows.
public struct ControlFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

extension StringProtocol {
    /// Without spaces and tabs at either end (FoundationEssentials has no trimmingCharacters).
    func trimmingBlanks() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return Substring()
        }
        return Substring(self[first...last])
    }
}

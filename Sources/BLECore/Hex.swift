extension Sequence where Element == UInt8 {
    /// Lower-case hex without separators, the form logs and test vectors use.
    public var hexString: String {
        // Through bytes rather than String appends: log lines and the CLI format every notification.
        let digits: StaticString = "0123456789abcdef"
        var ascii: [UInt8] = []
        ascii.reserveCapacity(underestimatedCount * 2)
        digits.withUTF8Buffer { table in
            for byte in self {
                ascii.append(table[Int(byte >> 4)])
                ascii.append(table[Int(byte & 0x0F)])
            }
        }
        return String(decoding: ascii, as: UTF8.self)
    }
}

extension FixedWidthInteger where Self: UnsignedInteger {
    /// "0x05" for a UInt8, "0x002A" for a UInt16: every digit of the type, as the Core spec and
    /// btmon write codes and handles.
    public var hexLiteral: String {
        let digits = String(self, radix: 16, uppercase: true)
        let padding = String(repeating: "0", count: Swift.max(0, Self.bitWidth / 4 - digits.count))
        return "0x\(padding)\(digits)"
    }
}

/// Why a hex string could not be turned into bytes.
public enum HexDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    case oddLength(Int)
    case invalidCharacter(Character)

    public var description: String {
        switch self {
        case let .oddLength(count): return "hex string has an odd number of digits (\(count))"
        case let .invalidCharacter(character): return "'\(character)' is not a hex digit"
        }
    }
}

extension Array where Element == UInt8 {
    /// Parses hex digits, ignoring spaces, colons, dashes and an optional `0x` prefix.
    public init(hex: String) throws(HexDecodingError) {
        var text = Substring(hex)
        if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
        let digits = text.filter { !" :-_\n\t".contains($0) }
        guard digits.count % 2 == 0 else { throw .oddLength(digits.count) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var high: UInt8? = nil
        for character in digits {
            guard let nibble = character.hexDigitValue else { throw .invalidCharacter(character) }
            if let upper = high {
                bytes.append(upper << 4 | UInt8(nibble))
                high = nil
            } else {
                high = UInt8(nibble)
            }
        }
        self = bytes
    }
}

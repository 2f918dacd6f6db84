import Logging

/// Renders one record as one line (without its newline).
enum LogLineFormatter {
    static func line(format: LogLineFormat, level: Logger.Level, label: String, message: String,
                     metadata: Logger.Metadata, time: @autoclosure () -> WallClockTime) -> String {
        var line: String
        switch format {
        case .journal:
            line = "<\(priority(level))>"
        case .timestamped:
            line = time().iso8601 + " " + level.rawValue + " "
        }
        line += escaped(label) + ": " + escaped(message)
        for key in metadata.keys.sorted() {
            line += " " + escaped(key) + "=" + quotedIfNeeded(escaped(rendered(metadata[key]!)))
        }
        return line
    }

    /// Strings as they are (swift-log's `description` quotes those inside arrays); dictionaries
    /// in key order so equal metadata gives equal lines.
    static func rendered(_ value: Logger.MetadataValue) -> String {
        switch value {
        case let .string(text): return text
        case let .stringConvertible(convertible): return convertible.description
        case let .array(values): return "[" + values.map(rendered).joined(separator: ", ") + "]"
        case let .dictionary(entries):
            return "[" + entries.keys.sorted().map { $0 + ": " + rendered(entries[$0]!) }.joined(separator: ", ") + "]"
        }
    }

    /// sd-daemon.h's SD_DEBUG...SD_CRIT; swift-log has no emergency or alert.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// Every record stays one line: journald (and anyone reading a log file) starts a new entry
    /// at each newline, so a newline inside a message, say from a peer's device name, would forge
    /// a second entry, at our priority, saying whatever the peer chose. Newlines, carriage
    /// returns and other control characters become C-style escapes; the backslash is escaped
    /// too, so `\n` in a line always means an escaped newline and never the two characters.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where needsEscape(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\\"
    }

    /// logfmt-style: a value with a space, quote or `=` (or an empty one) is quoted, so
    /// `key=value` pairs split unambiguously.
    static func quotedIfNeeded(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return value }
        return "\"" + value.replacing("\"", with: "\\\"") + "\""
    }
}

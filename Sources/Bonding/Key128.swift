/// A 128-bit key, little-endian (SMP wire order). Its description never shows the key, so a key that
/// reaches a log line, an error message or `dump` shows up as redacted.
public struct Key128: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let bytes: [UInt8]

    /// Nil unless exactly 16 bytes.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public var description: String { "<redacted 128-bit key>" }
    public var debugDescription: String { description }
    // Without this, `dump` and reflection-based printers would walk into `bytes`.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

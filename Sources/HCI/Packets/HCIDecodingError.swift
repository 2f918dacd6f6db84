import BLECore

/// Why bytes from the controller (or, in the virtual controller, from a host) could not be decoded.
public enum HCIDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated(String, ByteReaderError)
    case invalidValue(String, field: String, value: UInt64)
    case unexpectedLength(String, expected: Int, actual: Int)
    case wrongOpcode(expected: HCIOpcode, actual: HCIOpcode)

    public var description: String {
        switch self {
        case let .truncated(what, error): return "\(what): \(error)"
        case let .invalidValue(what, field, value): return "\(what): invalid \(field) 0x\(String(value, radix: 16))"
        case let .unexpectedLength(what, expected, actual): return "\(what): expected \(expected) bytes, got \(actual)"
        case let .wrongOpcode(expected, actual): return "expected \(expected), got \(actual)"
        }
    }
}

extension ByteReader {
    /// Runs a decoding step, attaching what was being decoded to a truncation.
    @inlinable
    public mutating func decoding<T>(_ what: String, _ body: (inout ByteReader) throws(ByteReaderError) -> T) throws(HCIDecodingError) -> T {
        do {
            return try body(&self)
        } catch {
            throw .truncated(what, error)
        }
    }
}

/// Why a list-carrying response cannot be built as given. The `fitting:` builders never hit these:
/// they keep only entries that make a valid response.
public enum ATTListError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The spec requires at least one entry.
    case empty
    /// Entries of one response must all have the same value length (3.4.4.2, 3.4.4.10).
    case mixedValueLengths(expected: Int, index: Int, actual: Int)
    /// The one-octet Length field cannot describe an entry this long.
    case valueTooLong(length: Int, maximum: Int)
    /// A 16-bit format Find Information Response cannot carry a 128-bit-only UUID (3.4.3.2).
    case uuidNotRepresentable(index: Int, uuid: String)

    public var description: String {
        switch self {
        case .empty:
            return "the response needs at least one entry; answer Attribute Not Found instead"
        case let .mixedValueLengths(expected, index, actual):
            return "entry \(index) has a \(actual)-octet value but the first has \(expected); send it in a later response"
        case let .valueTooLong(length, maximum):
            return "a \(length)-octet value does not fit the Length field (maximum \(maximum)); truncate it"
        case let .uuidNotRepresentable(index, uuid):
            return "entry \(index) has UUID \(uuid), which has no 16-bit form; use the 128-bit format"
        }
    }
}

extension ATTListError {
    /// The rule Read By Type and Read By Group Type responses share: at least one entry, every value
    /// as long as the first, and that length within what the one-octet Length field can describe.
    static func checkUniformValueLengths<Entry>(_ entries: [Entry], maximum: Int,
                                                valueLength: (Entry) -> Int) throws(ATTListError) {
        guard let first = entries.first else { throw .empty }
        let length = valueLength(first)
        guard length <= maximum else { throw .valueTooLong(length: length, maximum: maximum) }
        if let index = entries.firstIndex(where: { valueLength($0) != length }) {
            throw .mixedValueLengths(expected: length, index: index, actual: valueLength(entries[index]))
        }
    }
}

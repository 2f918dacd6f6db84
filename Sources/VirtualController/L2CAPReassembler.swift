/// Rebuilds basic L2CAP PDUs from ACL fragments, using the length in the basic L2CAP header
/// (Vol 3 Part A 3.1): 2 bytes payload length, 2 bytes channel ID, then the payload.
struct L2CAPReassembler {
    enum Outcome: Equatable {
        case incomplete
        case complete([UInt8])
        /// The fragment could not be placed; `reason` says why for the log.
        case dropped(reason: String)
    }

    private var partial: [UInt8] = []
    private var inProgress = false

    mutating func append(_ fragment: [UInt8], startsPDU: Bool) -> Outcome {
        var note: String?
        if startsPDU {
            if inProgress { note = "a new PDU started before the previous one (\(partial.count) bytes) was complete" }
            partial = fragment
            inProgress = true
        } else {
            guard inProgress else { return .dropped(reason: "continuation fragment without a start fragment") }
            partial.append(contentsOf: fragment)
        }
        // The header's length field needs 2 bytes; a start fragment shorter than that waits for more.
        guard partial.count >= 2 else { return note.map { .dropped(reason: $0) } ?? .incomplete }
        let expected = Int(partial[0]) | Int(partial[1]) << 8
        let total = expected + 4
        if partial.count < total { return .incomplete }
        inProgress = false
        defer { partial = [] }
        if partial.count > total {
            return .dropped(reason: "fragments carry \(partial.count) bytes but the L2CAP header announces \(total)")
        }
        return .complete(partial)
    }
}

/// Rebuilds L2CAP PDUs from ACL fragments of one connection (Core spec Vol 3 Part A 7.2).
/// The PDU's own basic-header length decides when it is complete; anything inconsistent is dropped
/// with a reason rather than trusted.
public struct ACLReassembler: Sendable {
    public enum Outcome: Sendable, Equatable {
        case complete([UInt8])
        case incomplete
        case dropped(String)
    }

    /// The largest L2CAP PDU we accept: basic header plus a 16-bit payload length.
    public static let maximumPDULength = 4 + Int(UInt16.max)

    private var buffer: [UInt8] = []
    private var expectedLength: Int? = nil
    private var inProgress = false

    public init() {}

    public var isIdle: Bool { !inProgress }

    public mutating func reset() {
        buffer = []
        expectedLength = nil
        inProgress = false
    }

    public mutating func append(_ fragment: [UInt8], boundary: ACLPacketBoundary) -> Outcome {
        var note: String? = nil
        if boundary.startsPDU {
            if inProgress { note = "previous PDU abandoned after \(buffer.count) bytes by a new start fragment" }
            buffer = fragment
            expectedLength = nil
            inProgress = true
        } else {
            guard inProgress else { return .dropped("continuation fragment without a start fragment") }
            buffer.append(contentsOf: fragment)
        }
        if expectedLength == nil, buffer.count >= 2 {
            expectedLength = 4 + (Int(buffer[0]) | Int(buffer[1]) << 8)
        }
        guard let expected = expectedLength else {
            return note.map { .dropped($0) } ?? .incomplete
        }
        if buffer.count > expected {
            let received = buffer.count
            reset()
            return .dropped("fragments carry \(received) bytes but the L2CAP header announces \(expected)")
        }
        if buffer.count == expected {
            let pdu = buffer
            reset()
            // A stale PDU was abandoned, but this one is whole: deliver it; the caller logs the note.
            return .complete(pdu)
        }
        return note.map { .dropped($0) } ?? .incomplete
    }
}

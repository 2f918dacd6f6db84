/// One accepted client, owned by the server loop (its thread only).
final class Connection {
    enum Phase: Equatable {
        /// Reading request lines; subject to the idle timeout.
        case awaitingRequest
        /// Receiving sensor updates; input is read only to notice the disconnect.
        case watching
        /// Flushing a last reply (an error), then closing.
        case closing
    }

    let fd: Int32
    var phase: Phase = .awaitingRequest
    /// Bytes of an incomplete request line.
    var input: [UInt8] = []
    var output = OutputQueue()
    /// The peer shut down its sending side: stop polling for input (EOF stays readable forever).
    var inputClosed = false
    var isClosed = false
    /// When the connection is closed for inactivity; nil while watching.
    var deadline: ContinuousClock.Instant?

    init(fd: Int32, deadline: ContinuousClock.Instant) {
        self.fd = fd
        self.deadline = deadline
    }
}

/// One accepted client, owned by the server loop (its thread only).
final class Connection {
    enum Phase: Equatable {
        /// Reading request lines; subject to the idle timeout.
        case awaitingRequest
        /// Receiving a stream (sensor updates or pairing events); input is read only to notice the disconnect.
        case watching(WatchTopic)
        /// A handler answers `command` later (`DeferredReply`); further requests wait unread in the
        /// socket, so replies keep their order and a pipelining client cannot grow our buffers.
        case awaitingReply(token: UInt64, command: ControlCommand)
        /// Flushing a last reply (an error), then closing.
        case closing
    }

    let fd: Int32
    /// The kernel's word on the peer: may it change security state and see the passkey.
    let isAdministrator: Bool
    var phase: Phase = .awaitingRequest
    /// Bytes of an incomplete request line.
    var input: [UInt8] = []
    var output = OutputQueue()
    /// The peer shut down its sending side: stop polling for input (EOF stays readable forever).
    var inputClosed = false
    var isClosed = false
    /// When the connection is closed for inactivity or its deferred reply is given up; nil while watching.
    var deadline: ContinuousClock.Instant?

    var isAwaitingReply: Bool { replyToken != nil }

    /// The token of the deferred reply this connection waits for.
    var replyToken: UInt64? {
        if case .awaitingReply(let token, _) = phase { return token }
        return nil
    }

    init(fd: Int32, isAdministrator: Bool, deadline: ContinuousClock.Instant) {
        self.fd = fd
        self.isAdministrator = isAdministrator
        self.deadline = deadline
    }
}

/// What a watching connection receives.
enum WatchTopic: Equatable, Sendable {
    case sensors, pairing
}

extension Connection {
    var isWatching: Bool {
        if case .watching = phase { return true }
        return false
    }

    var isWatchingSensors: Bool { phase == .watching(.sensors) }
}

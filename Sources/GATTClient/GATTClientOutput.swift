import HCI

/// Where the client's PDUs go: the link's ATT channel, supplied by the facade (same shape as the
/// server's output, plus the command pacing query for Write Without Response).
public struct GATTClientOutput: Sendable {
    public enum SendResult: Sendable, Equatable { case sent, full, closed }

    /// Sends one ATT PDU (no L2CAP header); `.full` when the link's transmit queue has no room.
    public var send: @Sendable (_ link: Link, _ pdu: [UInt8]) -> SendResult
    /// Suspends until the link's transmit queue has room again (or the link closed).
    public var waitForRoom: @Sendable (_ link: Link) async -> Void
    /// Whether a Write Command may be queued now without crowding out requests and confirmations.
    public var hasRoomForCommand: @Sendable (_ link: Link) -> Bool

    public init(send: @escaping @Sendable (Link, [UInt8]) -> SendResult,
                waitForRoom: @escaping @Sendable (Link) async -> Void,
                hasRoomForCommand: @escaping @Sendable (Link) -> Bool) {
        self.send = send
        self.waitForRoom = waitForRoom
        self.hasRoomForCommand = hasRoomForCommand
    }
}

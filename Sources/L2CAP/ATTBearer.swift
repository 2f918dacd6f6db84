import HCI

/// A link's ATT bearer, the L2CAP fixed channel 0x0004 (Core Vol 3 Part F 3.2.11), as the ATT
/// client and server of either role use it: send one ATT PDU, wait until the link's queue has room,
/// and ask whether a command (Write Without Response) may go now without crowding out requests and
/// confirmations. Tests and fuzzers give their own closures.
public struct ATTBearer: Sendable {
    public typealias SendOutcome = L2CAPFixedChannels.SendOutcome

    /// Sends one ATT PDU (no L2CAP header); `.full` when the link's transmit queue has no room.
    public var send: @Sendable (_ link: Link, _ pdu: [UInt8]) -> SendOutcome
    /// Suspends until the link's transmit queue has room again (or the link closed).
    public var waitForRoom: @Sendable (_ link: Link) async -> Void
    /// Whether a Write Command may be queued now: only when nothing of the link waits for a
    /// controller credit, so such writes are paced by the credits instead of filling the host queue.
    public var hasRoomForCommand: @Sendable (_ link: Link) -> Bool

    public init(send: @escaping @Sendable (Link, [UInt8]) -> SendOutcome,
                waitForRoom: @escaping @Sendable (Link) async -> Void,
                hasRoomForCommand: @escaping @Sendable (Link) -> Bool = { _ in true }) {
        self.send = send
        self.waitForRoom = waitForRoom
        self.hasRoomForCommand = hasRoomForCommand
    }

    /// The ATT channel of `channels`, whose links queue in `acl`; a full queue is waited out in `waiters`.
    public static func fixedChannel(of channels: L2CAPFixedChannels, acl: ACLFlowController, waiters: LinkRoomWaiters) -> ATTBearer {
        ATTBearer(send: { link, pdu in
            channels.trySend(pdu, channel: L2CAPChannelID.attribute, on: link)
        }, waitForRoom: { link in
            await waiters.waitForQueueRoom(on: link, in: acl)
        }, hasRoomForCommand: { link in
            acl.queuedPDUs(on: link) == 0
        })
    }
}

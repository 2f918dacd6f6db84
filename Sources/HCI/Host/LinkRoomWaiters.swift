import Synchronization

/// Tasks waiting for a link's ACL queue to drain (ATT PDUs of a server or client that found it full).
public final class LinkRoomWaiters: Sendable {
    public init() {}

    private let waiters = Mutex<[LinkID: [CheckedContinuation<Void, Never>]]>([:])

    /// Suspends until `resume(link)` is called, unless `hasRoom` is already true once registered.
    public func wait(for link: Link, hasRoom: @Sendable () -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiters.withLock { $0[link.id, default: []].append(continuation) }
            // Room may have come between the caller's failed send and registering here.
            if hasRoom() { resume(link.id) }
        }
    }

    /// Suspends until the link's ACL queue in `acl` can take another PDU, or the link closed
    /// (what an ATT server or client waits for after its send found the queue full).
    public func waitForQueueRoom(on link: Link, in acl: ACLFlowController) async {
        await wait(for: link) { acl.queuedPDUs(on: link) < acl.maxQueuedPDUsPerLink || !link.isOpen }
    }

    public func resume(_ link: LinkID) {
        let woken = waiters.withLock { $0.removeValue(forKey: link) } ?? []
        woken.forEach { $0.resume() }
    }
}

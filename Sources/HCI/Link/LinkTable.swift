import Synchronization

/// A link opening or closing, as synchronous observers see it.
public enum LinkChange: Sendable {
    case opened(Link)
    case closed(Link, reason: HCIStatus)
}

/// The open links, by the handle the controller uses for each, and the hooks upper layers attach
/// to them. It translates the controller's handles into links at the edge of the host, and an
/// entry goes the moment its link closes; layers above key their state by `LinkID`, which is never
/// reused. The one other handle index is `ACLFlowController`'s, for Number Of Completed Packets
/// (which names handles); its entry goes with the link's queue.
///
/// Calling context: any thread. Observers and the data handler run synchronously on the thread
/// that delivers controller packets, in controller order: an observer sees `.opened` before any
/// data of the link and `.closed` after its last data. They must not block.
public final class LinkTable: Sendable {
    struct Entry {
        let link: Link
        var reassembler = ACLReassembler()
    }

    struct State {
        var byHandle: [UInt16: Entry] = [:]
        /// A controller reset is in progress: connections reported now belong to the controller's
        /// state before the reset and are not opened.
        var resetting = false
    }

    struct Observer: Sendable { let call: @Sendable (LinkChange) -> Void }
    struct DataHandler: Sendable {
        weak var owner: (AnyObject & Sendable)?
        let call: @Sendable (Link, [UInt8]) -> Void
    }

    private let state = Mutex(State())
    private let observers = Mutex<[Observer]>([])
    private let dataHandler = Mutex<DataHandler?>(nil)

    public init() {}

    /// Adds a synchronous observer of links opening and closing (L2CAP, the GATT server, the
    /// notification engine set up and tear down their per-link state here).
    public func addObserver(_ observer: @escaping @Sendable (LinkChange) -> Void) {
        observers.withLock { $0.append(Observer(call: observer)) }
    }

    /// Installs the receiver of complete L2CAP PDUs (basic header included), normally L2CAP.
    public func setDataHandler(_ handler: @escaping @Sendable (Link, [UInt8]) -> Void) {
        dataHandler.withLock { $0 = DataHandler(owner: nil, call: handler) }
    }

    public enum DataHandlerClaim: Sendable { case claimed, alreadyOurs, takenByAnother }

    /// Installs `owner`'s receiver unless another live owner's is installed: the one L2CAP of a
    /// host keeps its links' data, and a second instance cannot silently take it away.
    public func claimDataHandler(by owner: AnyObject & Sendable,
                                 _ handler: @escaping @Sendable (Link, [UInt8]) -> Void) -> DataHandlerClaim {
        dataHandler.withLock { current in
            if let installed = current?.owner {
                return installed === owner ? .alreadyOurs : .takenByAnother
            }
            current = DataHandler(owner: owner, call: handler)
            return .claimed
        }
    }

    /// The open link on `handle`, if any.
    public func link(handle: UInt16) -> Link? {
        state.withLock { $0.byHandle[handle]?.link }
    }

    /// Open links, oldest handle first.
    public var openLinks: [Link] {
        state.withLock { $0.byHandle.values.map(\.link) }.sorted { $0.id < $1.id }
    }

    // MARK: Host side

    /// Registers a new link; `false` (and nothing registered) during a reset or when the handle is
    /// still taken by an open link, which a well-behaved controller never reports.
    func open(_ link: Link) -> Bool {
        state.withLock { state in
            guard !state.resetting, state.byHandle[link.handle] == nil else { return false }
            state.byHandle[link.handle] = Entry(link: link)
            return true
        }
    }

    func notifyOpened(_ link: Link) {
        let current = observers.withLock { $0 }
        current.forEach { $0.call(.opened(link)) }
    }

    /// Closes the link on `handle`; `nil` when no link is open there.
    func close(handle: UInt16, reason: HCIStatus) -> Link? {
        let link = state.withLock { $0.byHandle.removeValue(forKey: handle)?.link }
        guard let link, link.close(reason: reason) else { return nil }
        return link
    }

    func notifyClosed(_ link: Link, reason: HCIStatus) {
        let current = observers.withLock { $0 }
        current.forEach { $0.call(.closed(link, reason: reason)) }
    }

    /// Closes every link (the controller is being reset or is gone) and refuses new ones until
    /// `endReset()`. Returns the links closed.
    func beginReset(reason: HCIStatus) -> [Link] {
        let links = state.withLock { state -> [Link] in
            state.resetting = true
            defer { state.byHandle.removeAll() }
            return state.byHandle.values.map(\.link).sorted { $0.id < $1.id }
        }
        return links.filter { $0.close(reason: reason) }
    }

    func endReset() {
        state.withLock { $0.resetting = false }
    }

    /// Feeds an inbound ACL fragment to its link's reassembler.
    func reassemble(_ fragment: HCIACLPacket) -> (Link, ACLReassembler.Outcome)? {
        state.withLock { state in
            guard let link = state.byHandle[fragment.handle]?.link else { return nil }
            // Mutated in place, so the partial PDU is never copied.
            let outcome = state.byHandle[fragment.handle]!.reassembler.append(fragment.data, boundary: fragment.boundary)
            return (link, outcome)
        }
    }

    func deliver(_ pdu: [UInt8], on link: Link) -> Bool {
        guard let handler = dataHandler.withLock({ $0 }) else { return false }
        handler.call(link, pdu)
        return true
    }
}

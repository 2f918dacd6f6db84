/// The publishes handed to libmosquitto and not yet acknowledged (QoS 1/2) or written (QoS 0),
/// by message id: an acknowledgement counts only for a message of this connection, so one that
/// arrives for anything else cannot open the window wider than its bound.
struct InFlightWindow: Equatable {
    private(set) var messageIDs: Set<Int32> = []
    let limit: Int

    init(limit: Int) { self.limit = limit }

    var isFull: Bool { messageIDs.count >= limit }
    var count: Int { messageIDs.count }

    mutating func sent(_ messageID: Int32) { messageIDs.insert(messageID) }

    mutating func acknowledged(_ messageID: Int32) { messageIDs.remove(messageID) }

    /// A new connection: nothing of the old one will be acknowledged.
    mutating func reset() { messageIDs.removeAll() }
}

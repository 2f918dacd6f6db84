/// The peripheral's events, for one consumer. Taking a write-command batch from it returns its slot
/// to the bound on write commands waiting for the application (see
/// `PeripheralManager.Configuration.maxUndeliveredWriteCommands`).
public struct PeripheralEvents: AsyncSequence, Sendable {
    public typealias Element = PeripheralEvent

    let stream: AsyncStream<PeripheralEvent>
    let budget: CommandBudget

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<PeripheralEvent>.AsyncIterator
        let budget: CommandBudget

        public mutating func next() async -> PeripheralEvent? {
            let event = await base.next()
            if case let .writeRequests(batch) = event, !batch.needsResponse { budget.release() }
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), budget: budget)
    }
}

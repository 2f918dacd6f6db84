import Synchronization

/// Items delivered to a test one at a time: `next` removes and returns the first one that matches,
/// waiting for it up to a time limit (stretched by `TestTimeScale`), so an answer that never comes
/// fails the test with `nil` instead of hanging it. Items nobody waits for are kept, in order.
public final class Mailbox<Element: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let matches: @Sendable (Element) -> Bool
        let continuation: CheckedContinuation<Element?, Never>
    }

    private struct State {
        var items: [Element] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Hands `item` to the oldest waiter it matches, or keeps it for a later `next`.
    public func deliver(_ item: Element) {
        let waiter = state.withLock { state -> Waiter? in
            if let index = state.waiters.firstIndex(where: { $0.matches(item) }) { return state.waiters.remove(at: index) }
            state.items.append(item)
            return nil
        }
        waiter?.continuation.resume(returning: item)
    }

    /// The first kept or arriving item that matches, removed; `nil` once `timeout` has passed.
    public func next(timeout: Duration, where matches: @escaping @Sendable (Element) -> Bool = { _ in true }) async -> Element? {
        await withCheckedContinuation { continuation in
            let id = state.withLock { state -> Int? in
                if let index = state.items.firstIndex(where: matches) {
                    continuation.resume(returning: state.items.remove(at: index))
                    return nil
                }
                state.nextID += 1
                state.waiters.append(Waiter(id: state.nextID, matches: matches, continuation: continuation))
                return state.nextID
            }
            guard let id else { return }
            Task { [self] in
                try? await Task.sleep(for: timeout.scaledForTests)
                let expired = state.withLock { state -> Waiter? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index)
                }
                expired?.continuation.resume(returning: nil)
            }
        }
    }

    /// Items delivered but not taken yet.
    public var pending: [Element] { state.withLock { $0.items } }

    public func drain() { state.withLock { $0.items.removeAll() } }
}

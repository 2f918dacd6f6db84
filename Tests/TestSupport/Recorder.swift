import Synchronization

/// Items recorded as they arrive, in order, with the barriers tests wait on instead of sleeping:
/// `wait(for:)` a number of items, `wait(for:where:)` a number of matching ones. `finish()` marks
/// the source ended: waiters still unsatisfied then return `false` rather than hang. A wait also
/// returns `false` when its task is cancelled, so a suite's `.timeLimit` ends a wait that never
/// comes true instead of leaving the run stuck.
public final class Recorder<Element: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let isSatisfied: @Sendable ([Element]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var items: [Element] = []
        var waiters: [Waiter] = []
        var finished = false
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func append(_ item: Element) {
        let woken = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.items.append(item)
            let items = state.items
            var woken: [CheckedContinuation<Bool, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.isSatisfied(items) else { return false }
                woken.append(waiter.continuation)
                return true
            }
            return woken
        }
        woken.forEach { $0.resume(returning: true) }
    }

    /// No more items will come: pending waits return `false`.
    public func finish() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.continuation.resume(returning: false) }
    }

    public var all: [Element] { state.withLock { $0.items } }

    public func withLock<R>(_ body: ([Element]) -> R) -> R { state.withLock { body($0.items) } }

    public func count(where predicate: (Element) -> Bool) -> Int { state.withLock { $0.items.count(where: predicate) } }

    /// Returns once `condition` holds for the items recorded so far; `false` if the source ended first.
    @discardableResult
    public func wait(until condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Bool? = state.withLock { state in
                    if condition(state.items) { return true }
                    if state.finished || Task.isCancelled { return false }
                    state.waiters.append(Waiter(id: id, isSatisfied: condition, continuation: continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            cancelled?.resume(returning: false)
        }
    }

    /// Like `wait(until:)`, but gives up (`false`) once `timeout`, stretched by `TestTimeScale`, has
    /// passed: for harnesses whose callers check what arrived rather than whether the wait ended.
    @discardableResult
    public func wait(timeout: Duration, until condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.wait(until: condition) }
            group.addTask {
                try? await Task.sleep(for: timeout.scaledForTests)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Returns once at least `count` items arrived.
    @discardableResult
    public func wait(for count: Int) async -> Bool {
        await wait { $0.count >= count }
    }

    /// Returns once at least `count` items matching `predicate` arrived.
    @discardableResult
    public func wait(for count: Int = 1, where predicate: @escaping @Sendable (Element) -> Bool) async -> Bool {
        await wait { $0.count(where: predicate) >= count }
    }
}

import Glibc
import HCITransports
import Synchronization

/// Scripted `HCISystemCalls`: each call answers from its list in order, the last answer repeating,
/// and every call is recorded so a test can assert the exact sequence the transport made.
final class FakeHCISystemCalls: HCISystemCalls, Sendable {
    enum Call: Equatable, Sendable {
        case socket, isUp(UInt16), powerDown(UInt16), bind(UInt16), close(Int32), unblockRfkill(UInt32)
    }

    struct Script: Sendable {
        var socket: [Result<Int32, SystemErrno>] = [.success(100)]
        var isUp: [Result<Bool, SystemErrno>] = [.success(false)]
        var powerDown: [Result<Void, SystemErrno>] = [.success(())]
        var bind: [Result<Void, SystemErrno>] = [.success(())]
        var unblockRfkill: [Result<Void, SystemErrno>] = [.success(())]
        /// Runs after a successful unblock (a test clears `soft` in its sysfs tree here).
        var onUnblock: (@Sendable (UInt32) -> Void)? = nil
    }

    private struct State {
        var script: Script
        var calls: [Call] = []
    }

    private let state: Mutex<State>

    init(_ script: Script = Script()) {
        state = Mutex(State(script: script))
    }

    var calls: [Call] { state.withLock { $0.calls } }

    private func answer<T: Sendable>(_ call: Call, _ list: WritableKeyPath<Script, [Result<T, SystemErrno>]>) -> Result<T, SystemErrno> {
        state.withLock { state in
            state.calls.append(call)
            let answers = state.script[keyPath: list]
            if answers.count > 1 { state.script[keyPath: list].removeFirst() }
            return answers.first ?? .failure(SystemErrno(ENOSYS))
        }
    }

    func openSocket() -> Result<Int32, SystemErrno> { answer(.socket, \.socket) }
    func isUp(_ socket: Int32, index: UInt16) -> Result<Bool, SystemErrno> { answer(.isUp(index), \.isUp) }
    func powerDown(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno> { answer(.powerDown(index), \.powerDown) }
    func bindUserChannel(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno> { answer(.bind(index), \.bind) }

    func close(_ descriptor: Int32) {
        state.withLock { $0.calls.append(.close(descriptor)) }
    }

    func unblockRfkill(index: UInt32) -> Result<Void, SystemErrno> {
        let result = answer(.unblockRfkill(index), \.unblockRfkill)
        if case .success = result, let hook = state.withLock({ $0.script.onUnblock }) { hook(index) }
        return result
    }
}

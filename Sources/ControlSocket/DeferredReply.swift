import Synchronization

/// The answer to a request that a handler completes later, from any thread: the server keeps
/// serving other clients meanwhile, and holds back this client's further requests so replies stay
/// in order. Only the first `complete` counts. A reply released without being completed (a
/// handler bug, a task torn down) answers with an error rather than leave the client waiting.
public final class DeferredReply<Value: Sendable>: Sendable {
    private let command: ControlCommand
    private let deliver: @Sendable ([UInt8]) -> Void
    private let makeReply: @Sendable (Value) -> ControlReply
    private let completed = Atomic<Bool>(false)

    init(command: ControlCommand, makeReply: @escaping @Sendable (Value) -> ControlReply,
         deliver: @escaping @Sendable ([UInt8]) -> Void) {
        self.command = command
        self.makeReply = makeReply
        self.deliver = deliver
    }

    /// Encodes the reply on the caller's thread and wakes the server to write it. Non-blocking.
    public func complete(_ result: Result<Value, ControlFailure>) {
        guard !completed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let line: [UInt8]
        switch result {
        case .success(let value):
            do { line = try ControlCodec.line(makeReply(value)) } catch {
                line = ControlCodec.errorLine("blesensord could not encode its \(command.rawValue) reply: \(error)")
            }
        case .failure(let failure):
            line = ControlCodec.errorLine(failure.message)
        }
        deliver(line)
    }

    public func succeed(_ value: Value) { complete(.success(value)) }

    public func fail(_ message: String) { complete(.failure(ControlFailure(message))) }

    deinit {
        guard !completed.load(ordering: .acquiring) else { return }
        deliver(ControlCodec.errorLine("blesensord dropped the \(command.rawValue) request without answering; check `journalctl -u blesensord`"))
    }
}

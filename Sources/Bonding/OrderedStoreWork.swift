/// Store work run one job at a time, in the order it was asked for, off the caller's context:
/// asking never blocks, and a later write never loses to an earlier one that a task scheduler
/// happened to run last. Every component that writes the bond store from a hot or locked path
/// queues its writes here.
public final class OrderedStoreWork: Sendable {
    public typealias Job = @Sendable () async -> Void

    private let sink: AsyncStream<Job>.Continuation
    private let worker: Task<Void, Never>

    public init() {
        let (jobs, sink) = AsyncStream.makeStream(of: Job.self)
        self.sink = sink
        worker = Task {
            for await job in jobs { await job() }
        }
    }

    deinit { sink.finish() }

    /// Queues `job`; false (and the job dropped) after `close`.
    @discardableResult
    public func enqueue(_ job: @escaping Job) -> Bool {
        if case .terminated = sink.yield(job) { return false }
        return true
    }

    /// Returns once every job queued so far has run.
    public func settle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !enqueue({ continuation.resume() }) { continuation.resume() }
        }
    }

    /// Runs the jobs already queued; later ones are dropped.
    public func close() async {
        sink.finish()
        await worker.value
    }
}

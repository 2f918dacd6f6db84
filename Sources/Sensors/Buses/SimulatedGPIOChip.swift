import Synchronization

/// An in-memory GPIO chip whose lines are driven by tests or `SimulatedPulseSource`.
public final class SimulatedGPIOChip: GPIOChip {
    public let name: String
    private let lines: [SimulatedGPIOLine]

    /// `lineNames[i]` names offset i (nil for unnamed lines).
    public init(name: String = "gpiochip0", lineNames: [String?]) {
        self.name = name
        self.lines = lineNames.enumerated().map { SimulatedGPIOLine(chipName: name, offset: $0.offset, name: $0.element) }
    }

    public func line(offset: Int) throws(GPIOError) -> any GPIOLine {
        try simulatedLine(offset: offset)
    }

    public func simulatedLine(offset: Int) throws(GPIOError) -> SimulatedGPIOLine {
        guard lines.indices.contains(offset) else { throw .lineNotFound(chip: name, line: String(offset)) }
        return lines[offset]
    }

    public func line(named lineName: String) throws(GPIOError) -> any GPIOLine {
        guard let line = lines.first(where: { $0.name == lineName }) else {
            throw .lineNotFound(chip: name, line: lineName)
        }
        return line
    }
}

/// A simulated line. Edges passed to `emit` are delivered synchronously on the caller's thread,
/// which plays the part of the kernel reader thread.
public final class SimulatedGPIOLine: GPIOLine {
    public let chipName: String
    public let offset: Int
    public let name: String?

    private struct Subscription {
        var id: Int
        var edges: GPIOEdgeSelection
        var handler: @Sendable (GPIOMonitorEvent) -> Void
    }

    private struct State {
        var level = false
        var bias: GPIOBias = .asIs
        var subscription: Subscription?
        var nextID = 0
    }

    private let state = Mutex(State())

    init(chipName: String, offset: Int, name: String?) {
        self.chipName = chipName
        self.offset = offset
        self.name = name
    }

    /// The bias the last request asked for, so tests can check drivers configure pull-ups.
    public var requestedBias: GPIOBias { state.withLock { $0.bias } }

    public var isMonitored: Bool { state.withLock { $0.subscription != nil } }

    public func setLevel(_ level: Bool) { state.withLock { $0.level = level } }

    public func readInput(bias: GPIOBias, consumer: String) throws(GPIOError) -> Bool {
        try state.withLock { state throws(GPIOError) -> Bool in
            guard state.subscription == nil else { throw .lineBusy(chip: chipName, offset: offset) }
            state.bias = bias
            return state.level
        }
    }

    public func monitorEdges(
        _ edges: GPIOEdgeSelection,
        bias: GPIOBias,
        consumer: String,
        handler: @escaping @Sendable (GPIOMonitorEvent) -> Void
    ) throws(GPIOError) -> any GPIOEdgeMonitor {
        let id = try state.withLock { state throws(GPIOError) -> Int in
            guard state.subscription == nil else { throw .lineBusy(chip: chipName, offset: offset) }
            state.bias = bias
            state.nextID += 1
            state.subscription = Subscription(id: state.nextID, edges: edges, handler: handler)
            return state.nextID
        }
        return SimulatedGPIOEdgeMonitor { [weak self] in
            self?.state.withLock { state in
                if state.subscription?.id == id { state.subscription = nil }
            }
        }
    }

    /// Delivers edges to the monitor (filtered by its edge selection) and updates the level.
    public func emit(_ events: [GPIOEdgeEvent]) {
        for event in events {
            let subscription: Subscription? = state.withLock { state in
                state.level = event.edge == .rising
                return state.subscription
            }
            guard let subscription else { continue }
            switch (subscription.edges, event.edge) {
            case (.both, _), (.rising, .rising), (.falling, .falling): subscription.handler(.edge(event))
            default: break
            }
        }
    }

    /// Simulates the line failing underneath the monitor (e.g. the chip went away).
    public func fail(_ error: GPIOError) {
        let subscription = state.withLock { state -> Subscription? in
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.handler(.failed(error))
    }
}

final class SimulatedGPIOEdgeMonitor: GPIOEdgeMonitor {
    private let onStop: Mutex<(@Sendable () -> Void)?>

    init(onStop: @escaping @Sendable () -> Void) {
        self.onStop = Mutex(onStop)
    }

    func stop() {
        let action = onStop.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }
}

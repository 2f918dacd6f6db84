import BLECore
import HCI
import L2CAP
import Logging
import Synchronization

/// What the peripheral asks each central for, and when.
public struct ConnectionParameterRequest: Sendable, Equatable {
    public var parameters: PreferredConnectionParameters
    /// After the connection, as Zephyr's automatic update waits: the central has finished
    /// discovery by then, and a request during it is often refused.
    public var delay: Duration

    public static let standard = ConnectionParameterRequest(parameters: .standard, delay: .seconds(5))

    public init(parameters: PreferredConnectionParameters, delay: Duration) {
        self.parameters = parameters
        self.delay = delay
    }
}

/// One request per link, once: a central that refuses keeps its parameters and is not asked again.
final class ConnectionParameterRequests: Sendable {
    private let request: ConnectionParameterRequest
    private let channels: L2CAPFixedChannels
    private let clock: any HostClock
    private let logger: Logger
    private let timers = Mutex<[LinkID: TimerHandle]>([:])

    init(request: ConnectionParameterRequest, channels: L2CAPFixedChannels, clock: any HostClock, logger: Logger) {
        self.request = request
        self.channels = channels
        self.clock = clock
        self.logger = logger
    }

    func linkOpened(_ link: Link) {
        let timer = clock.schedule(after: request.delay) { [weak self] in
            guard let self else { return }
            Task { await self.ask(link) }
        }
        timers.withLock { $0[link.id] = timer }
    }

    /// Links whose request is still to come.
    var waitingLinks: Int { timers.withLock { $0.count } }

    func linkClosed(_ link: Link) {
        timers.withLock { $0.removeValue(forKey: link.id) }?.cancel()
    }

    private func ask(_ link: Link) async {
        timers.withLock { _ = $0.removeValue(forKey: link.id) }
        let preferred = request.parameters
        let current = link.parameters
        guard !preferred.isSatisfied(interval: current.interval, latency: current.latency, supervisionTimeout: current.supervisionTimeout) else {
            return
        }
        let wanted = LEConnectionParameters(intervalMin: preferred.intervalMinUnits, intervalMax: preferred.intervalMaxUnits,
                                            latency: preferred.latencyValue, supervisionTimeout: preferred.supervisionTimeoutUnits)
        let asked = "interval \(Self.text(preferred.intervalMin))–\(Self.text(preferred.intervalMax)), latency \(preferred.latency), "
            + "supervision timeout \(Self.text(preferred.supervisionTimeout))"
        let kept = "keeping interval \(current.intervalMilliseconds) ms, latency \(current.latency), "
            + "supervision timeout \(Int(current.supervisionTimeout) * 10) ms; not asking again"
        switch await channels.requestConnectionParameterUpdate(wanted, on: link) {
        case .accepted:
            logger.info("\(link.id): central accepted \(asked)")
        case .rejected, .commandRejected:
            logger.notice("\(link.id): central refused \(asked); \(kept)")
        case .timedOut:
            logger.notice("\(link.id): central did not answer the request for \(asked); \(kept)")
        case .connectionClosed:
            break
        case let .sendFailed(error):
            logger.warning("\(link.id): connection parameter request not sent: \(error)")
        }
    }

    private static func text(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        if milliseconds >= 1000, milliseconds.remainder(dividingBy: 1000) == 0 { return "\(Int(milliseconds / 1000)) s" }
        return milliseconds.rounded() == milliseconds ? "\(Int(milliseconds)) ms" : "\(milliseconds) ms"
    }
}

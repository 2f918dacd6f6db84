#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BridgeConfiguration
import ControlSocket
import Logging
import SensorBridge
import Synchronization

/// `metrics:`: serves `/metrics` for Prometheus. Pulled, not pushed: each scrape reads the daemon's
/// state as `status` does, so nothing is kept between scrapes and a failed sensor's value is gone
/// at the next scrape.
public final class MetricsExporter: SensorExporter {
    /// Where a scrape reads the daemon's state; both are called on the server's thread.
    public struct Sources: Sendable {
        public var snapshot: @Sendable () -> StatusSnapshot
        public var notificationsSent: @Sendable () -> [String: Int64]

        public init(snapshot: @escaping @Sendable () -> StatusSnapshot, notificationsSent: @escaping @Sendable () -> [String: Int64]) {
            self.snapshot = snapshot
            self.notificationsSent = notificationsSent
        }
    }

    private enum Phase {
        case stopped
        case serving(MetricsHTTPServer)
        case failed(MetricsServerError)
    }

    public let settings: MetricsSettings
    private let version: String
    private let sources: Sources
    private let logger: Logger
    private let phase = Mutex(Phase.stopped)

    /// Characteristic UUIDs whose notification counts are not exposed (those of health sensors
    /// not opted in).
    private let withheldCharacteristics: Set<String>

    public init(settings: MetricsSettings, version: String, sources: Sources, withheldCharacteristics: Set<String> = [], logger: Logger) {
        self.settings = settings
        self.withheldCharacteristics = withheldCharacteristics
        self.version = version
        self.sources = sources
        self.logger = logger
    }

    public func start() {
        do {
            let server = try MetricsHTTPServer(host: settings.host, port: settings.port) { [weak self] head in
                self?.response(to: head) ?? HTTPResponse(status: 503, reason: "Service Unavailable", body: Array("stopping\n".utf8))
            }
            phase.withLock { $0 = .serving(server) }
            server.start()
            logger.info("metrics: serving Prometheus metrics at http://\(server.address)/metrics")
        } catch {
            phase.withLock { $0 = .failed(error) }
            logger.error("metrics: \(error); the daemon goes on without its Prometheus endpoint")
        }
    }

    public func stop() {
        let server: MetricsHTTPServer? = phase.withLock { phase in
            defer { if case .serving = phase { phase = .stopped } }
            if case let .serving(server) = phase { return server }
            return nil
        }
        server?.stop()
    }

    /// Pulled at scrape time: the bridge need not build a status per poll for it.
    public var hearsPolls: Bool { false }

    public func sensorChanged(_ status: SensorStatus) {}

    public func status() -> ExporterStatus {
        let detail = "sensors: " + (settings.sensors.names.isEmpty ? "none" : settings.sensors.names.joined(separator: ", "))
        switch phase.withLock({ $0 }) {
        case let .serving(server):
            return ExporterStatus(name: "metrics", state: .running, endpoint: "http://\(server.address)/metrics", sent: server.served, detail: detail)
        case let .failed(error):
            return ExporterStatus(name: "metrics", state: .failed, endpoint: "http://\(settings.listenDescription)/metrics",
                                  lastError: error.description, detail: detail)
        case .stopped:
            return ExporterStatus(name: "metrics", state: .connecting, endpoint: "http://\(settings.listenDescription)/metrics", detail: detail)
        }
    }

    /// `/metrics` in the format the Accept header asks for; `/` says where to look; the rest is 404.
    func response(to head: HTTPRequestHead) -> HTTPResponse {
        switch head.path {
        case "/metrics":
            let format = ExpositionFormat.negotiate(accept: head.headers["accept"])
            return HTTPResponse(status: 200, reason: "OK", contentType: format.contentType, body: format.render(families()))
        case "/":
            return HTTPResponse(status: 200, reason: "OK", body: Array("blesensord \(version): Prometheus metrics at /metrics\n".utf8))
        default:
            return HTTPResponse(status: 404, reason: "Not Found", body: Array("not found; metrics are at /metrics\n".utf8))
        }
    }

    func families() -> [MetricFamily] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let sent = sources.notificationsSent().filter { !withheldCharacteristics.contains($0.key) }
        let input = MetricsInput(snapshot: sources.snapshot(), notificationsSent: sent, process: ProcessMetrics.current(),
                                 wallClockSeconds: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
        return SensorMetrics.families(input, exported: settings.sensors, version: version)
    }
}

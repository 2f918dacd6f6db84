import ATT
import BLECore
import BridgeConfiguration
import ControlSocket
import GATT
import GATTNotify
import Logging
import Peripheral
import SIGProfiles
import Sensors
import Synchronization

/// The sensor bridge: one poller per configured sensor, each poll turned into the SIG services'
/// values and into the status the control socket reports. Built like any application on the
/// public peripheral API: the caller adds `services`, applies `updatePolicies`, forwards read and
/// write requests to `answer`, and passes `UpdateSink` (the `PeripheralManager`).
public final class SensorBridge: Sendable {
    public let configuration: BridgeConfiguration
    private let publishers: [any ServicePublisher]
    private let routes: [String: [(PublishedCharacteristic, any ServicePublisher)]]
    private let pollers = PollerTable()
    private let status: SensorStatusBook
    private let clock: any HostClock
    private let factory: SensorSourceFactory
    private let logger: Logger
    private let observer: Mutex<StatusObserver?>
    private let exporters = Mutex<[any SensorExporter]>([])
    private let sink: any UpdateSink

    public init(configuration: BridgeConfiguration, sink: any UpdateSink, factory: SensorSourceFactory,
                clock: any HostClock = SystemClock.shared, logger: Logger) {
        self.configuration = configuration
        self.clock = clock
        self.factory = factory
        self.logger = logger
        self.status = SensorStatusBook(sensors: configuration.sensors, clock: clock)
        self.observer = Mutex(nil)
        self.sink = sink

        let feeders = Dictionary(configuration.sensors.flatMap { sensor in sensor.publish.map { ($0, sensor) } },
                                 uniquingKeysWith: { first, _ in first })
        var publishers: [any ServicePublisher] = []
        var routes: [String: [(PublishedCharacteristic, any ServicePublisher)]] = [:]
        func route(_ characteristic: PublishedCharacteristic, to publisher: any ServicePublisher) {
            if let sensor = feeders[characteristic] { routes[sensor.name, default: []].append((characteristic, publisher)) }
        }

        if let sensor = feeders[.heartRateMeasurement] {
            let location: BodySensorLocation = sensor.driver == .gpioPulse ? .chest : .finger
            let heartRate = HeartRatePublisher(location: location, sink: sink, clock: clock)
            publishers.append(heartRate)
            route(.heartRateMeasurement, to: heartRate)
        }
        let thermometerFeeder = feeders[.temperatureMeasurement] ?? feeders[.intermediateTemperature]
        if let sensor = thermometerFeeder {
            let pollers = self.pollers
            let name = sensor.name
            // The Measurement Interval sets the polling period only of a sensor that feeds nothing
            // but the thermometer; one that also feeds ESS keeps its period and 2A1C is paced by
            // the interval instead, so the other services' update intervals stay true.
            let retimes = Set(sensor.publish).isSubset(of: [.temperatureMeasurement, .intermediateTemperature])
            let thermometer = HealthThermometerPublisher(
                type: .body, interval: sensor.pollInterval,
                includesIntermediate: feeders[.intermediateTemperature] != nil, sink: sink, clock: clock,
                units: [.temperatureMeasurement, .intermediateTemperature].reduce(into: [:]) { units, characteristic in
                    units[characteristic] = feeders[characteristic]?.unit
                }) { interval in
                    if retimes { pollers.poller(name)?.setInterval(interval) }
                }
            publishers.append(thermometer)
            route(.temperatureMeasurement, to: thermometer)
            route(.intermediateTemperature, to: thermometer)
        }
        let environmental: [PublishedCharacteristic] = [.environmentalTemperature, .humidity, .pressure].filter { feeders[$0] != nil }
        if !environmental.isEmpty {
            let intervals = Dictionary(uniqueKeysWithValues: environmental.compactMap { c in feeders[c].map { (c, $0.pollInterval) } })
            let ess = EnvironmentalSensingPublisher(published: environmental, intervals: intervals, sink: sink, clock: clock)
            publishers.append(ess)
            environmental.forEach { route($0, to: ess) }
        }
        if feeders[.plxContinuousMeasurement] != nil {
            let oximeter = PulseOximeterPublisher(sink: sink)
            publishers.append(oximeter)
            route(.plxContinuousMeasurement, to: oximeter)
        }
        if feeders[.batteryLevel] != nil {
            let battery = BatteryPublisher(sink: sink)
            publishers.append(battery)
            route(.batteryLevel, to: battery)
        }
        self.publishers = publishers
        self.routes = routes
    }

    /// This build's version, as Device Information reports it (firmware and software revision).
    public static let softwareVersion = DeviceInformationService.version

    /// Temperature Measurement 2A1C: what store-and-forward keeps for bonded centrals that are away.
    public static let temperatureMeasurement = HealthThermometerPublisher.measurement

    /// Every service to add, Device Information last, with the security the configuration asks of
    /// each characteristic (the profiles themselves leave them open).
    public var services: [GATTService] {
        let all = publishers.map(\.service) + [DeviceInformationService.make(configuration.deviceInformation)]
        return all.map { CharacteristicSecurity.apply(configuration.security, to: $0) }
    }

    public var updatePolicies: [CharacteristicID: UpdatePolicy] {
        publishers.reduce(into: [:]) { policies, publisher in policies.merge(publisher.updatePolicies) { first, _ in first } }
    }

    private struct StatusObserver {
        let isWatching: @Sendable () -> Bool
        let observe: @Sendable (SensorStatus) -> Void
    }

    /// `observe` is called on a sensor thread after each poll with the sensor's new status, while
    /// `isWatching` says someone wants it (the control socket's watchers). Neither may block.
    public func setStatusObserver(isWatching: @escaping @Sendable () -> Bool = { true },
                                  _ observe: (@Sendable (SensorStatus) -> Void)?) {
        self.observer.withLock { $0 = observe.map { StatusObserver(isWatching: isWatching, observe: $0) } }
    }

    /// `exporter` hears every sensor's status after each poll, until `detach`; one that does not
    /// hear polls is not kept.
    public func attach(_ exporter: any SensorExporter) {
        guard exporter.hearsPolls else { return }
        exporters.withLock { $0.append(exporter) }
    }

    public func detach(_ exporter: any SensorExporter) {
        exporters.withLock { $0.removeAll { $0 === exporter } }
    }

    /// Starts polling every sensor. Sensors whose hardware cannot be opened are retried with back-off.
    public func start() {
        // One origin for every grid: sensors with the same interval come due together, so the
        // timer thread wakes once per tick for all of them.
        let origin = clock.now
        for sensor in configuration.sensors {
            let factory = self.factory
            // What a source must remember across reopenings (a heater cool-down) lives here.
            let heaterMemory = SHT4xHeaterCycle.Memory()
            let source = ReopeningSource { () throws(SensorError) in try factory.makeSource(for: sensor, heaterMemory: heaterMemory) }
            let poller = SensorPoller(name: sensor.name, source: source, interval: sensor.pollInterval, clock: clock) { [weak self] outcome in
                self?.deliver(outcome, from: sensor.name)
            }
            pollers.insert(poller)
            poller.start(origin: origin)
        }
    }

    /// Stops every poller; reads in progress finish on their threads.
    public func stop() {
        pollers.removeAll().forEach { $0.stop() }
    }

    public func sensorStatus() -> [SensorStatus] { status.snapshot() }

    /// The current poll interval of a sensor (the Measurement Interval changes the thermometer's).
    public func pollInterval(of sensor: String) -> Duration? { pollers.poller(sensor)?.interval }

    public func answer(_ request: ReadRequest) -> Result<[UInt8], ATTErrorCode> {
        guard let publisher = publishers.first(where: { $0.owns(request.characteristic) }) else { return .failure(.readNotPermitted) }
        return publisher.read(request.characteristic, descriptor: request.descriptor)
    }

    /// All or nothing: every write of the batch is checked before any is applied.
    public func answer(_ batch: WriteBatch) -> Result<Void, ATTErrorCode> { apply(batch.requests) }

    func apply(_ writes: [WriteRequest]) -> Result<Void, ATTErrorCode> {
        var targets: [(WriteRequest, any ServicePublisher)] = []
        for write in writes {
            guard let publisher = publishers.first(where: { $0.owns(write.characteristic) }) else { return .failure(.writeNotPermitted) }
            if let error = publisher.check(write) { return .failure(error) }
            targets.append((write, publisher))
        }
        for (write, publisher) in targets { publisher.apply(write) }
        return .success(())
    }

    private func deliver(_ outcome: PollOutcome, from sensor: String) {
        let recorded = status.record(outcome, sensor: sensor)
        if let (previous, current) = recorded, current != previous {
            switch (current, outcome) {
            case let (.failed, .failed(error)): logger.error("sensor \(sensor): \(error); retrying with back-off")
            case let (.noSignal, .noSignal(cause)): logger.notice("sensor \(sensor): no signal: \(cause)")
            case (.noSignal, .measured): logger.notice("sensor \(sensor): \(SensorStatusBook.noContact)")
            case (.ok, _) where previous == .failed || previous == .noSignal: logger.notice("sensor \(sensor): reading again")
            // A scheduled heater cycle is routine: visible in the log at info, not a notice each time.
            case let (.paused, .paused(reason)): logger.info("sensor \(sensor): \(reason)")
            default: break
            }
        }
        if case let .measured(measurement) = outcome, let notice = measurement.notice { logger.notice("sensor \(sensor): \(notice)") }
        // The values one poll produces (2A1C and 2A1E, the three ES values) leave in one write.
        sink.batching {
            for (characteristic, publisher) in routes[sensor] ?? [] {
                publisher.publish(outcome, to: characteristic)
            }
        }
        let exporters = self.exporters.withLock { $0 }
        let observer = observer.withLock { $0 }.flatMap { $0.isWatching() ? $0 : nil }
        guard !exporters.isEmpty || observer != nil, let current = status.status(of: sensor) else { return }
        exporters.forEach { $0.sensorChanged(current) }
        observer?.observe(current)
    }
}

/// The running pollers by sensor name; shared with the Measurement Interval handler.
private final class PollerTable: Sendable {
    private let pollers = Mutex<[String: SensorPoller]>([:])

    func insert(_ poller: SensorPoller) { pollers.withLock { $0[poller.name] = poller } }
    func poller(_ name: String) -> SensorPoller? { pollers.withLock { $0[name] } }

    func removeAll() -> [SensorPoller] {
        pollers.withLock { pollers in
            defer { pollers.removeAll() }
            return Array(pollers.values)
        }
    }
}

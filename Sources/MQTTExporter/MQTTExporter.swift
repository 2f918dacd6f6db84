import BLECore
import BridgeConfiguration
import CMosquitto
import ControlSocket
import Foundation
import Logging
import SensorBridge
import Sensors
import Synchronization

/// Publishes the readings to an MQTT broker with Home Assistant discovery, through libmosquitto on
/// a thread of its own (`MQTTConnectionLoop`). Sensor threads only put the newest value of each
/// topic into a table and wake that thread, so a slow or absent broker never holds up a sensor and
/// nothing queues without bound.
public final class MQTTExporter: SensorExporter {
    /// Shared between sensor threads, the control server and the MQTT thread; held only briefly.
    struct Shared {
        var values = LatestValues()
        /// Each sensor's last published fault state, so a problem is published when it changes.
        var failed: [String: Bool] = [:]
        var state = ExporterStatus.State.connecting
        var lastError: String?
        var sent: Int64 = 0
        var stopping = false
        var stopped = false
    }

    let settings: MQTTSettings
    let topics: MQTTTopics
    let entities: [MQTTEntity]
    let clientID: String
    let logger: Logger
    let clock: @Sendable () -> MonotonicInstant
    let shared = Mutex(Shared())
    /// An eventfd: written by `wake()`, polled by the MQTT thread.
    let wakeDescriptor: Int32
    private let sensorsByName: [String: SensorConfiguration]
    private let finished = DispatchSemaphore(value: 0)

    /// `sensors` are the exported ones (`settings.sensors`), in configuration order.
    public init(settings: MQTTSettings, device: MQTTDeviceIdentity, deviceName: String, sensors: [SensorConfiguration],
                logger: Logger, clock: @escaping @Sendable () -> MonotonicInstant = { MonotonicInstant.systemNow }) {
        self.settings = settings
        topics = MQTTTopics(prefix: settings.resolvedTopicPrefix(deviceName: deviceName), discoveryPrefix: settings.discoveryPrefix,
                            node: "blesensor_\(device.identifier)")
        let exported = sensors.filter { settings.sensors.contains($0.name) }
        entities = HomeAssistantDiscovery.entities(sensors: exported, device: device, topics: topics)
        clientID = settings.clientID ?? "blesensor-\(device.identifier)"
        self.logger = logger
        self.clock = clock
        sensorsByName = Dictionary(exported.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        wakeDescriptor = cmosquitto_wake_descriptor()
    }

    deinit {
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
    }

    public func start() {
        MQTTLibrary.initialise()
        let loop = MQTTConnectionLoop(exporter: self)
        NamedThread.start("blesensor-mqtt") { [finished] in
            loop.run()
            finished.signal()
        }
    }

    /// Publishes `offline` and disconnects, waiting a few seconds at most: a broker that does not
    /// answer must not hold up the daemon's exit.
    public func stop() {
        let running = shared.withLock { shared -> Bool in
            shared.stopping = true
            return !shared.stopped
        }
        guard running else { return }
        wake()
        if finished.wait(timeout: .now() + .seconds(5)) == .timedOut {
            // Its thread is left behind (blocked in libmosquitto, most likely a host name lookup);
            // the daemon exits regardless.
            logger.warning("MQTT: the MQTT thread did not finish within 5 s of stopping; not waiting for it")
        }
    }

    public func sensorChanged(_ status: SensorStatus) {
        guard let sensor = sensorsByName[status.name] else { return }
        let messages = Self.messages(for: status, sensor: sensor, topics: topics)
        let changed = shared.withLock { shared -> Bool in
            guard !shared.stopping else { return false }
            var changed = false
            if let failed = messages.failed, shared.failed[status.name] != failed {
                shared.failed[status.name] = failed
                shared.values.put(MQTTMessage(topic: topics.problem(sensor: status.name), payload: failed ? "ON" : "OFF", retain: true))
                changed = true
            }
            for topic in messages.withdrawn { shared.values.remove(topic: topic) }
            for topic in messages.stale { shared.values.forget(topic: topic) }
            for message in messages.values {
                shared.values.put(message)
                changed = true
            }
            return changed
        }
        if changed { wake() }
    }

    public func status() -> ExporterStatus {
        shared.withLock { shared in
            ExporterStatus(name: "mqtt", state: shared.state, endpoint: settings.broker.description, sent: shared.sent,
                           dropped: shared.values.dropped, lastError: shared.lastError,
                           detail: "client id \(clientID), topics under \(topics.prefix)/, discovery under \(topics.discoveryPrefix)/; sensors: "
                               + (sensorsByName.isEmpty ? "none" : settings.sensors.names.filter { sensorsByName[$0] != nil }.joined(separator: ", ")))
        }
    }

    func wake() {
        var one: UInt64 = 1
        // Non-blocking: a full counter already means "wake up".
        _ = write(wakeDescriptor, &one, 8)
    }

    /// What a sensor's status turns into: its values when it read successfully, a problem state
    /// when it is (or is no longer) failed, and no value at all while it is failed.
    struct SensorMessages {
        var values: [MQTTMessage] = []
        var withdrawn: [String] = []
        /// Topics whose value is no longer current: not sent again after a reconnection or Home
        /// Assistant's restart, though a value still pending from the last good read goes out.
        var stale: [String] = []
        /// Nil while nothing is known yet (starting).
        var failed: Bool?
    }

    static func messages(for status: SensorStatus, sensor: SensorConfiguration, topics: MQTTTopics) -> SensorMessages {
        var result = SensorMessages()
        switch status.state {
        case .starting:
            break
        case .failed:
            result.failed = true
            result.withdrawn = Quantity.allCases.map { topics.state(sensor: sensor.name, quantity: $0) }
        case .paused, .noSignal:
            // A paused sensor's values are old, a sensor with no signal has none: publish nothing and
            // let expire_after blank them if this lasts. Nor may the last good value be sent again
            // as fresh after a reconnection (a heart rate after the finger is off).
            result.failed = false
            result.stale = Quantity.allCases.map { topics.state(sensor: sensor.name, quantity: $0) }
        case .ok:
            result.failed = false
            for reading in status.readings {
                guard let quantity = Quantity(rawValue: reading.quantity), sensor.driver.quantities.contains(quantity) else { continue }
                result.values.append(MQTTMessage(topic: topics.state(sensor: sensor.name, quantity: quantity),
                                                 payload: HomeAssistantDiscovery.statePayload(quantity: quantity, value: reading.value),
                                                 retain: false))
            }
        }
        return result
    }
}

/// `mosquitto_lib_init` once per process, before the first client.
enum MQTTLibrary {
    private static let initialised: Bool = { mosquitto_lib_init() == Int32(MOSQ_ERR_SUCCESS.rawValue) }()

    static func initialise() { _ = initialised }
}

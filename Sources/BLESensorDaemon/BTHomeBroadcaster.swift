import BLECore
import BTHome
import BridgeConfiguration
import ControlSocket
import Logging
import SensorBridge
import Sensors
import Synchronization

/// Where the broadcaster's packets go: the peripheral's advertising in the daemon, a recorder in tests.
struct BroadcastSink: Sendable {
    /// Our address as centrals see it, most significant octet first (the order of the encryption nonce).
    var address: @Sendable () async -> [UInt8]?
    /// Advertises `data` as the service data of UUID 0xFCD2 (the octets after the UUID); nil takes it
    /// out of the advertisement.
    var advertise: @Sendable (_ data: [UInt8]?) async throws -> Void
}

/// `broadcast: bthome`: the newest readings of the chosen sensors as BTHome v2 service data in the
/// advertisement (encrypted with the bindkey when there is one), for receivers that never connect.
/// The sensor thread only records the reading and wakes the worker; the worker builds the packet
/// from whatever is newest then, so polls coalesce instead of queueing. A new packet goes out only
/// when the values changed, at most once a second, and again after a minute (`BTHomeSchedule`).
final class BTHomeBroadcaster: SensorExporter {
    private struct State {
        /// The newest values per sensor; a failed sensor's are nil (never an old value as current).
        var values: [String: [BTHomeMeasurement]] = [:]
        var sent: Int64 = 0
        var dropped: Int64 = 0
        var lastError: String? = nil
        var failed = false
        /// Values of the last packet that did not fit one advertising packet.
        var leftOut = 0
        /// Whether the advertisement may hold one of our packets (to take out when we stop).
        var onAir = false
    }

    struct BTHomeMeasurement: Sendable {
        var object: BTHomeObject
        /// Nil when the sensor failed: it still holds its place among the object's values.
        var value: Double?
    }

    private let settings: BroadcastSettings
    private let counterPath: String
    private let sink: BroadcastSink
    private let logger: Logger
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let worker = Mutex<Task<Void, Never>?>(nil)
    private let schedule: BTHomeSchedule
    private let clock = ContinuousClock()
    /// The packet id before the first packet's.
    private let initialPacketID: UInt8

    /// `initialPacketID` is random by default: receivers drop a packet whose id is at most 63 behind
    /// (or equal to) the last one they saw within 4 s, which a restart at 1 often is.
    init(settings: BroadcastSettings, counterPath: String, sink: BroadcastSink, logger: Logger,
         schedule: BTHomeSchedule = BTHomeSchedule(), initialPacketID: UInt8? = nil) {
        var random = SystemRandomNumberGenerator()
        self.initialPacketID = initialPacketID ?? UInt8.random(in: .min ... .max, using: &random)
        self.schedule = schedule
        self.settings = settings
        self.counterPath = counterPath
        self.sink = sink
        self.logger = logger
        // One pending wake-up at most: the worker reads the newest values when it gets to them.
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func start() {
        let task = Task { [self] in await run() }
        worker.withLock { $0 = task }
    }

    func stop() {
        wake.finish()
        worker.withLock { $0 }?.cancel()
    }

    /// Returns once the worker has ended (after `stop`, or a failure that stops the broadcast), its
    /// last packet taken off the air.
    func finished() async {
        await worker.withLock { $0 }?.value
    }

    func sensorChanged(_ status: SensorStatus) {
        guard settings.sensors.contains(status.name) else { return }
        var measurements: [BTHomeMeasurement] = []
        // A paused sensor still shows its last ambient values (its characteristics hold them too).
        if status.state == .ok || status.state == .paused {
            for reading in status.readings {
                guard let quantity = Quantity(rawValue: reading.quantity), settings.objects.contains(quantity),
                      let object = Self.object(for: quantity) else { continue }
                // BTHome carries °C, whatever unit the sensor is shown in.
                measurements.append(BTHomeMeasurement(object: object, value: reading.measuredValue))
            }
        }
        state.withLock { current in
            // The objects the sensor had before and has no value for now are missing, not gone.
            let missing = (current.values[status.name] ?? []).filter { old in !measurements.contains { $0.object == old.object } }
            current.values[status.name] = measurements + missing.map { BTHomeMeasurement(object: $0.object, value: nil) }
        }
        wake.yield()
    }

    func status() -> ExporterStatus {
        let encrypted = settings.bindkey != nil
        let current = state.withLock { $0 }
        let health = settings.sensors.names.filter { settings.healthSensors.contains($0) }
        var detail = "sensors: " + (settings.sensors.names.isEmpty ? "none" : settings.sensors.names.joined(separator: ", "))
        if !health.isEmpty { detail += " (health data in \(encrypted ? "encrypted" : "clear") broadcasts: \(health.joined(separator: ", ")))" }
        detail += "; objects: " + settings.objects.map(\.rawValue).joined(separator: ", ")
        if current.leftOut > 0 {
            detail += "; \(current.leftOut) value(s) left out: one advertising packet holds no more (choose fewer sensors or objects)"
        }
        return ExporterStatus(name: "bthome", state: current.failed ? .failed : .running,
                              endpoint: "BTHome v2 service data 0xFCD2 (\(encrypted ? "encrypted" : "not encrypted"))",
                              sent: current.sent, dropped: current.dropped, lastError: current.lastError, detail: detail)
    }

    static func object(for quantity: Quantity) -> BTHomeObject? {
        switch quantity {
        case .temperature: .temperature
        case .humidity: .humidity
        case .pressure: .pressure
        case .batteryLevel: .battery
        case .heartRate, .oxygenSaturation: nil
        }
    }

    /// What the encryption needs, set up once before the first packet.
    private struct Encryption {
        var key: AESCCM
        var address: [UInt8]
        var counters: BTHomeCounterStore
    }

    /// Broadcasts until stopped or failed, then takes the last packet out of the advertisement: a
    /// receiver would otherwise show its values as current for as long as the daemon advertises.
    private func run() async {
        await broadcast()
        guard state.withLock({ $0.onAir }) else { return }
        // Not cancelled with the worker (stop cancels it): the clearing itself must still happen.
        let sink = sink
        do {
            try await Task { try await sink.advertise(nil) }.value
            state.withLock { $0.onAir = false }
        } catch {
            logger.warning("BTHome broadcast: the last packet stays in the advertisement: \(error)")
        }
    }

    private func broadcast() async {
        var encryption: Encryption? = nil
        if let bindkey = settings.bindkey {
            do {
                let key = try AESCCM(key: bindkey)
                guard let address = await sink.address(), address.count == 6 else {
                    fail("our Bluetooth address is not known yet: no encrypted broadcast (its nonce needs the address)")
                    return
                }
                let path = counterPath
                let counters = try await DedicatedThread.run { () throws(BTHomeCounterError) in try BTHomeCounterStore(path: path) }
                if counters.startedFromWallClock {
                    logger.notice("BTHome broadcast: no encryption counter at \(path) (a new or lost state directory): counting from the clock's Unix seconds, above any counter sent before with this bindkey")
                }
                encryption = Encryption(key: key, address: address, counters: counters)
            } catch {
                fail("\(error)")
                return
            }
        }
        // Wakes the worker now and then for the keep-alive, which no poll asks for.
        let tick = schedule.keepAlive / 60
        let ticker = Task { [wake, clock] in
            while (try? await clock.sleep(for: tick)) != nil { wake.yield() }
        }
        defer { ticker.cancel() }
        let started = clock.now
        var schedule = schedule
        var packetID = initialPacketID
        var loggedError: String? = nil
        wakeups: for await _ in wakeups {
            var objects: [UInt8] = []
            var leftOut = 0
            decision: while true {
                let measurements = state.withLock { current in settings.sensors.names.flatMap { current.values[$0] ?? [] } }
                (objects, leftOut) = BTHomePacket.objects(packetID: packetID &+ 1, measurements: measurements.map { ($0.object, $0.value) },
                                                          room: BTHomePacket.objectRoom(encrypted: encryption != nil))
                switch schedule.decide(Array(objects.dropFirst(2)), now: clock.now - started) {
                case .send: break decision
                case .keep: continue wakeups
                case let .wait(until):
                    // Stopped while waiting: nothing more goes out.
                    guard (try? await clock.sleep(until: started + until)) != nil else { return }
                }
            }
            packetID &+= 1
            schedule.sent(Array(objects.dropFirst(2)), at: clock.now - started)
            let previouslyLeftOut = state.withLock { current in
                defer { current.leftOut = leftOut }
                return current.leftOut
            }
            if leftOut > 0, previouslyLeftOut == 0 {
                logger.notice("BTHome broadcast: \(leftOut) value(s) left out: one advertising packet holds no more (choose fewer sensors or objects under broadcast:)")
            }
            let data: [UInt8]
            do {
                if var active = encryption {
                    let counter: UInt32
                    if active.counters.reservesOnNext {
                        // The next block is reserved on disk first: a blocking write, so off this thread.
                        let counters = active.counters
                        (counter, active.counters) = try await DedicatedThread.run { () throws(BTHomeCounterError) in
                            var copy = counters
                            return (try copy.next(), copy)
                        }
                    } else {
                        counter = try active.counters.next()
                    }
                    encryption = active
                    data = try BTHomePacket.encrypted(objects, key: active.key, address: active.address, counter: counter)
                } else {
                    data = BTHomePacket.clear(objects)
                }
            } catch {
                // Without a counter there is no safe nonce: stop rather than ever reuse one.
                fail("\(error)")
                return
            }
            do {
                state.withLock { $0.onAir = true }
                try await sink.advertise(data)
                state.withLock { $0.sent += 1 }
            } catch {
                let message = "advertisement not updated: \(error)"
                state.withLock {
                    $0.dropped += 1
                    $0.lastError = message
                }
                // Rather no values on air than the previous packet's shown as current.
                if (try? await sink.advertise(nil)) != nil { state.withLock { $0.onAir = false } }
                if message != loggedError {
                    logger.warning("BTHome broadcast: \(message)")
                    loggedError = message
                }
            }
        }
    }

    private func fail(_ message: String) {
        logger.error("BTHome broadcast stopped: \(message)")
        state.withLock {
            $0.failed = true
            $0.lastError = message
        }
    }
}

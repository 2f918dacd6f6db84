import BLECore
import BridgeConfiguration
import ControlSocket
import Logging
import Sensors
import Testing
@testable import MQTTExporter

/// The latest-value table: bounded by topics, replacements counted as dropped.
@Suite struct LatestValuesTests {
    static func message(_ topic: String, _ payload: String) -> MQTTMessage { MQTTMessage(topic: topic, payload: payload, retain: false) }

    @Test func aNewerValueReplacesAPendingOneAndCountsADrop() {
        var table = LatestValues()
        for value in 0..<1000 { table.put(Self.message("a", "\(value)")) }
        table.put(Self.message("b", "x"))
        #expect(table.pending.count == 2)
        #expect(table.dropped == 999)
        #expect(table.takePending() == [Self.message("a", "999"), Self.message("b", "x")])
        #expect(table.pending.isEmpty)
        table.put(Self.message("a", "1000"))
        #expect(table.dropped == 999)
    }

    @Test func currentValuesAreSentAgainAfterAReconnectionWithoutADrop() {
        var table = LatestValues()
        table.put(Self.message("a", "1"))
        table.put(Self.message("b", "2"))
        _ = table.takePending()
        table.put(Self.message("b", "3"))
        table.resendCurrent()
        #expect(table.takePending() == [Self.message("a", "1"), Self.message("b", "3")])
        #expect(table.dropped == 0)
    }

    @Test func aRemovedTopicIsNeitherPendingNorCurrent() {
        var table = LatestValues()
        table.put(Self.message("a", "1"))
        table.remove(topic: "a")
        table.resendCurrent()
        #expect(table.takePending().isEmpty)
    }

    @Test func aForgottenTopicStillGoesOutIfPendingButIsNotSentAgain() {
        var table = LatestValues()
        table.put(Self.message("a", "1"))
        table.forget(topic: "a")
        #expect(table.takePending() == [Self.message("a", "1")])
        table.resendCurrent()
        #expect(table.takePending().isEmpty)
    }

    @Test func backoffDoublesToTheCapAndResets() {
        var backoff = ReconnectBackoff()
        let start = MonotonicInstant(nanoseconds: 0)
        let delays = (0..<9).map { _ in backoff.nextAttempt(after: start) - start }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        backoff.reset()
        #expect(backoff.nextAttempt(after: start) - start == .seconds(1))
    }

    static let room = SensorConfiguration(name: "room", driver: .bme280, pollInterval: .seconds(1), publish: [.environmentalTemperature])
    static let topics = MQTTTopics(prefix: "p", discoveryPrefix: "homeassistant", node: "n")

    static func status(_ state: SensorStatus.State, readings: [QuantityReading] = []) -> SensorStatus {
        SensorStatus(name: "room", driver: "bme280", value: readings.first?.value, unit: "°C", ageSeconds: nil, state: state,
                     error: nil, readings: readings, reads: 1, failures: 0)
    }

    @Test func anOKSensorPublishesEveryQuantityInHomeAssistantsUnits() {
        let messages = MQTTExporter.messages(for: Self.status(.ok, readings: [
            QuantityReading(quantity: "temperature", value: 21.5, unit: "°C"),
            QuantityReading(quantity: "humidity", value: 45, unit: "%RH"),
            QuantityReading(quantity: "pressure", value: 101_325, unit: "Pa"),
        ]), sensor: Self.room, topics: Self.topics)
        #expect(messages.failed == false)
        #expect(messages.values.map(\.topic) == ["p/room/temperature", "p/room/humidity", "p/room/pressure"])
        #expect(messages.values.map(\.payload) == ["21.50", "45.0", "1013.25"])
    }

    @Test func aFailedSensorPublishesNoValueAndWithdrawsItsOldOnes() {
        let messages = MQTTExporter.messages(for: Self.status(.failed), sensor: Self.room, topics: Self.topics)
        #expect(messages.failed == true)
        #expect(messages.values.isEmpty)
        #expect(messages.withdrawn.contains("p/room/temperature"))
    }

    @Test(arguments: [SensorStatus.State.paused, .noSignal, .failed])
    func aValueIsNotSentAgainOnceItsSensorStopsReading(state: SensorStatus.State) {
        let settings = MQTTSettings(broker: .init(tls: false, host: "127.0.0.1", port: 1), sensors: ExportedSensors(names: ["room"]))
        let exporter = MQTTExporter(settings: settings, device: HomeAssistantDiscoveryTests.device, deviceName: "Kitchen Pi", sensors: [Self.room],
                                    logger: Logger(label: "test"))
        exporter.sensorChanged(Self.status(.ok, readings: [QuantityReading(quantity: "temperature", value: 20, unit: "°C")]))
        _ = exporter.shared.withLock { $0.values.takePending() }
        exporter.sensorChanged(Self.status(state))
        let resent = exporter.shared.withLock { shared in
            _ = shared.values.takePending()
            // What a reconnection or Home Assistant's `online` would send.
            shared.values.resendCurrent()
            return shared.values.takePending().map(\.topic)
        }
        #expect(resent == ["blesensor/kitchen_pi/room/problem"])
    }

    @Test func theExporterKeepsOneValuePerTopicWhileNotConnected() {
        let settings = MQTTSettings(broker: .init(tls: false, host: "127.0.0.1", port: 1), sensors: ExportedSensors(names: ["room"]))
        let exporter = MQTTExporter(settings: settings, device: HomeAssistantDiscoveryTests.device, deviceName: "Kitchen Pi", sensors: [Self.room],
                                    logger: Logger(label: "test"))
        let ok = Self.status(.ok, readings: [QuantityReading(quantity: "temperature", value: 20, unit: "°C")])
        for _ in 0..<500 { exporter.sensorChanged(ok) }
        exporter.sensorChanged(Self.status(.failed))
        let (pending, current) = exporter.shared.withLock { ($0.values.pending, $0.values.current) }
        #expect(pending.keys.sorted() == ["blesensor/kitchen_pi/room/problem"])
        #expect(pending["blesensor/kitchen_pi/room/problem"]?.payload == "ON")
        #expect(current.count == 1)
        let status = exporter.status()
        #expect(status.name == "mqtt" && status.state == .connecting && status.endpoint == "mqtt://127.0.0.1:1")
        #expect(status.dropped == 500)
    }
}

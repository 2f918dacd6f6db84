import BLECore
import BridgeConfiguration
import Foundation
import Sensors
import Testing
@testable import MQTTExporter

/// Home Assistant discovery payloads, topics and the unique ids that must survive restarts.
@Suite struct HomeAssistantDiscoveryTests {
    static let device = MQTTDeviceIdentity(name: "Kitchen Pi", identifier: "c01122334455", model: "Raspberry Pi 4 Model B",
                                           manufacturer: "blesensor project", softwareVersion: "1.2.3")
    static let topics = MQTTTopics(prefix: "blesensor/kitchen_pi", discoveryPrefix: "homeassistant", node: "blesensor_c01122334455")
    static let room = SensorConfiguration(name: "room", driver: .bme280, pollInterval: .seconds(1), publish: [.environmentalTemperature])
    static let pulse = SensorConfiguration(name: "pulse", driver: .max30102, pollInterval: .milliseconds(250), publish: [.heartRateMeasurement])

    static func json(_ entity: MQTTEntity) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(entity.config.utf8)) as? [String: Any])
    }

    @Test func aBME280GivesThreeSensorsAndAProblem() throws {
        let entities = HomeAssistantDiscovery.entities(sensors: [Self.room], device: Self.device, topics: Self.topics)
        #expect(entities.map(\.configTopic) == [
            "homeassistant/sensor/blesensor_c01122334455/room_temperature/config",
            "homeassistant/sensor/blesensor_c01122334455/room_humidity/config",
            "homeassistant/sensor/blesensor_c01122334455/room_pressure/config",
            "homeassistant/binary_sensor/blesensor_c01122334455/room_problem/config",
        ])
        #expect(entities.map(\.stateTopic) == ["blesensor/kitchen_pi/room/temperature", "blesensor/kitchen_pi/room/humidity",
                                               "blesensor/kitchen_pi/room/pressure", "blesensor/kitchen_pi/room/problem"])
        let temperature = try Self.json(entities[0])
        #expect(temperature["unique_id"] as? String == "blesensor_c01122334455_room_temperature")
        #expect(temperature["name"] as? String == "room temperature")
        #expect(temperature["state_topic"] as? String == "blesensor/kitchen_pi/room/temperature")
        #expect(temperature["device_class"] as? String == "temperature")
        #expect(temperature["unit_of_measurement"] as? String == "°C")
        #expect(temperature["state_class"] as? String == "measurement")
        #expect(temperature["expire_after"] as? Int == 30)
        #expect(temperature["availability_topic"] as? String == "blesensor/kitchen_pi/availability")
        #expect(temperature["payload_available"] as? String == "online")
        #expect(temperature["payload_not_available"] as? String == "offline")
        let device = try #require(temperature["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["blesensor_c01122334455"])
        #expect(device["name"] as? String == "Kitchen Pi")
        #expect(device["model"] as? String == "Raspberry Pi 4 Model B")
        #expect(device["manufacturer"] as? String == "blesensor project")
        #expect(device["sw_version"] as? String == "1.2.3")
        let humidity = try Self.json(entities[1])
        #expect(humidity["device_class"] as? String == "humidity" && humidity["unit_of_measurement"] as? String == "%")
        let pressure = try Self.json(entities[2])
        #expect(pressure["device_class"] as? String == "atmospheric_pressure" && pressure["unit_of_measurement"] as? String == "hPa")
        let problem = try Self.json(entities[3])
        #expect(problem["device_class"] as? String == "problem")
        #expect(problem["entity_category"] as? String == "diagnostic")
        #expect(problem["payload_on"] as? String == "ON" && problem["payload_off"] as? String == "OFF")
        #expect(problem["unit_of_measurement"] == nil && problem["state_class"] == nil)
    }

    @Test func heartRateAndSpO2HaveNoDeviceClassButAnIcon() throws {
        let entities = HomeAssistantDiscovery.entities(sensors: [Self.pulse], device: Self.device, topics: Self.topics)
        let byObject = Dictionary(uniqueKeysWithValues: try entities.map { ($0.uniqueID, try Self.json($0)) })
        let heart = try #require(byObject["blesensor_c01122334455_pulse_heart_rate"])
        #expect(heart["device_class"] == nil && heart["unit_of_measurement"] as? String == "bpm" && heart["icon"] as? String == "mdi:heart-pulse")
        let spo2 = try #require(byObject["blesensor_c01122334455_pulse_spo2"])
        #expect(spo2["device_class"] == nil && spo2["unit_of_measurement"] as? String == "%" && spo2["icon"] != nil)
    }

    @Test func aFahrenheitSensorAnnouncesDegreesFahrenheit() throws {
        var sensor = Self.room
        sensor.unit = .fahrenheit
        let entities = HomeAssistantDiscovery.entities(sensors: [sensor], device: Self.device, topics: Self.topics)
        #expect(try Self.json(entities[0])["unit_of_measurement"] as? String == "°F")
    }

    @Test func uniqueIDsDependOnTheAddressOnlyNotOnTheNameOrOrder() {
        let first = HomeAssistantDiscovery.entities(sensors: [Self.room, Self.pulse], device: Self.device, topics: Self.topics).map(\.uniqueID)
        var renamed = Self.device
        renamed.name = "Living room"
        let again = HomeAssistantDiscovery.entities(sensors: [Self.pulse, Self.room], device: renamed, topics: Self.topics).map(\.uniqueID)
        #expect(Set(first) == Set(again))
        #expect(Set(first).count == first.count)
    }

    @Test func theIdentifierIsTheAddressWithoutColons() {
        #expect(MQTTDeviceIdentity.identifier(address: "C0:11:22:33:44:55 (random static)", deviceName: "x") == "c01122334455")
        #expect(MQTTDeviceIdentity.identifier(address: "public address", deviceName: "Kitchen Pi") == "kitchen_pi")
    }

    @Test func expireAfterIsThreePollsAndAtLeastThirtySeconds() {
        #expect(HomeAssistantDiscovery.expireAfter(pollInterval: .milliseconds(250)) == 30)
        #expect(HomeAssistantDiscovery.expireAfter(pollInterval: .seconds(60)) == 180)
        #expect(HomeAssistantDiscovery.expireAfter(pollInterval: .milliseconds(10_100)) == 31)
    }

    @Test func statesAreInTheAnnouncedUnit() {
        #expect(HomeAssistantDiscovery.statePayload(quantity: .pressure, value: 101_325) == "1013.25")
        #expect(HomeAssistantDiscovery.statePayload(quantity: .temperature, value: 21.5) == "21.50")
        #expect(HomeAssistantDiscovery.statePayload(quantity: .humidity, value: 45) == "45.0")
        #expect(HomeAssistantDiscovery.statePayload(quantity: .heartRate, value: 72) == "72")
        #expect(HomeAssistantDiscovery.statePayload(quantity: .batteryLevel, value: 87) == "87")
    }

    @Test func topicLevelsAreSafe() {
        #expect(MQTTSettings.topicLevel("Kitchen Pi") == "kitchen_pi")
        #expect(MQTTSettings.topicLevel("a/b+c#d") == "a_b_c_d")
        #expect(MQTTSettings.topicLevel("  ") == "blesensor")
        #expect(MQTTSettings.topicLevel("Küche-1") == "k_che-1")
        #expect(Self.topics.availability == "blesensor/kitchen_pi/availability")
        #expect(Self.topics.homeAssistantStatus == "homeassistant/status")
        #expect(Self.topics.state(sensor: "Room 2", quantity: .batteryLevel) == "blesensor/kitchen_pi/room_2/battery-level")
    }
}

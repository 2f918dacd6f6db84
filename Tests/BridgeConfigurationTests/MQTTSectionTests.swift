import BLECore
import Foundation
import Testing
@testable import BridgeConfiguration

/// `mqtt:`: the broker URL, credentials from a file, TLS files, topics, with line numbers.
@Suite struct MQTTSectionTests {
    static let base = """
        board: simulated
        device-name: Kitchen Pi
        sensors:
          - {name: room, driver: bme280}
          - {name: pulse, driver: max30102, publish: [heart-rate-measurement]}

        """

    @Test func withoutTheSectionNothingIsPublished() throws {
        #expect(try load(Self.base).get().mqtt == nil)
    }

    @Test func theDefaults() throws {
        let mqtt = try #require(try load(Self.base + "mqtt: {broker: mqtt://192.168.1.10}").get().mqtt)
        #expect(mqtt.broker == MQTTSettings.Broker(tls: false, host: "192.168.1.10", port: 1883))
        #expect(mqtt.clientID == nil && mqtt.username == nil && mqtt.password == nil)
        #expect(mqtt.discoveryPrefix == "homeassistant")
        #expect(mqtt.resolvedTopicPrefix(deviceName: "Kitchen Pi") == "blesensor/kitchen_pi")
        #expect(mqtt.qos == 1 && mqtt.keepalive == .seconds(60))
        // Health data only when listed under health-sensors.
        #expect(mqtt.sensors.names == ["room"])
    }

    @Test func everyKeyIsRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["password", "ca.pem", "client.pem", "client.key"] {
            try Data((name == "password" ? "s3cret\n" : "x").utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
        }
        let mqtt = try #require(try load(Self.base + """
            mqtt:
              broker: mqtts://broker.lan
              client-id: kitchen
              username: bridge
              password-file: \(directory)/password
              ca-file: \(directory)/ca.pem
              client-certificate: \(directory)/client.pem
              client-key: \(directory)/client.key
              topic-prefix: home/kitchen
              discovery-prefix: ha
              qos: 2
              keepalive: 30s
              sensors: [room]
              health-sensors: [pulse]
            """).get().mqtt)
        #expect(mqtt.broker == MQTTSettings.Broker(tls: true, host: "broker.lan", port: 8883))
        #expect(mqtt.clientID == "kitchen" && mqtt.username == "bridge" && mqtt.password == "s3cret")
        #expect(mqtt.caFile == "\(directory)/ca.pem" && mqtt.clientCertificate == "\(directory)/client.pem" && mqtt.clientKey == "\(directory)/client.key")
        #expect(mqtt.resolvedTopicPrefix(deviceName: "x") == "home/kitchen" && mqtt.discoveryPrefix == "ha")
        #expect(mqtt.qos == 2 && mqtt.keepalive == .seconds(30))
        #expect(mqtt.sensors.names == ["room", "pulse"])
    }

    @Test(arguments: [
        ("mqtt://[::1]:1884", MQTTSettings.Broker(tls: false, host: "::1", port: 1884)),
        ("MQTTS://broker-1.lan:18883/", MQTTSettings.Broker(tls: true, host: "broker-1.lan", port: 18883)),
        ("mqtt://localhost", MQTTSettings.Broker(tls: false, host: "localhost", port: 1883)),
    ])
    func brokerURLs(text: String, broker: MQTTSettings.Broker) throws {
        #expect(try MQTTBrokerURL.parse(text).get() == broker)
    }

    @Test func brokerURLProblemsHaveTheirLine() {
        #expect(problems(Self.base + "mqtt:\n  broker: http://x") == [
            "mqtt.broker (line 7): 'http://x' is not a broker URL: write mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS)"])
        #expect(problems(Self.base + "mqtt:\n  broker: mqtt://u:p@x") == [
            "mqtt.broker (line 7): put the user name under username and the password in a file named by password-file, not in the URL"])
        #expect(problems(Self.base + "mqtt:\n  broker: mqtt://x:0") == ["mqtt.broker (line 7): '0' is not a port 1…65535"])
        #expect(problems(Self.base + "mqtt:\n  broker: mqtt://x/topic") == [
            "mqtt.broker (line 7): 'mqtt://x/topic' has a path; a broker URL is only mqtt[s]://HOST[:PORT]"])
        #expect(problems(Self.base + "mqtt:\n  broker: mqtt://") == ["mqtt.broker (line 7): '' is not a host name or address"])
        #expect(problems(Self.base + "mqtt: {qos: 1}") == [
            "mqtt (line 6): needs broker: the broker's URL, like mqtt://192.168.1.10 or mqtts://broker.lan:8883"])
    }

    @Test func otherProblemsHaveTheirLine() {
        let text = Self.base + """
            mqtt:
              broker: mqtt://x
              qos: 3
              topic-prefix: home/+/kitchen
              discovery-prefix: /ha
              ca-file: /etc/ssl/ca.pem
              keepalive: 2s
              password-file: relative
              sensors: [pulse]
            """
        #expect(problems(text) == [
            "mqtt.qos (line 8): 3 is out of range 0…2",
            "mqtt.topic-prefix (line 9): 'home/+/kitchen' contains a wildcard (+ or #), which a topic to publish to cannot have",
            "mqtt.discovery-prefix (line 10): '/ha' has an empty topic level: write e.g. homeassistant, with no leading, trailing or double /",
            "mqtt.ca-file (line 11): ca-file only applies to TLS: write the broker as mqtts://x",
            "mqtt.keepalive (line 12): 2s is out of range 5s…1h",
            "mqtt.password-file (line 13): 'relative' is not an absolute path; write e.g. /etc/blesensor/mqtt-password",
            "mqtt.sensors (line 14): 'pulse' carries health data (heart rate, SpO2 or body temperature); to send it off the device, list it under health-sensors instead",
        ])
        #expect(problems(Self.base + "mqtt:\n  broker: mqtt://x\n  brokr: y") == ["mqtt.brokr (line 8): unknown key 'brokr'; did you mean 'broker'?"])
    }

    @Test func credentialFilesAreChecked() {
        #expect(problems(Self.base + "mqtt:\n  broker: mqtt://x\n  username: u\n  password-file: /nonexistent/pw") == [
            "mqtt.password-file (line 9): /nonexistent/pw does not exist: write the password into it, then chown root:blesensor and chmod 0640 it"])
        #expect(problems(Self.base + "mqtt:\n  broker: mqtt://x\n  password-file: /nonexistent/pw") == [
            "mqtt.password-file (line 8): a password needs a username: add username"])
        #expect(problems(Self.base + "mqtt:\n  broker: mqtts://x\n  client-key: /nonexistent/key") == [
            "mqtt.client-key (line 8): /nonexistent/key does not exist",
            "mqtt.client-key (line 8): give both client-certificate and client-key, or neither"])
    }

    @Test func sensorNamesThatDifferOnlyInCaseAreRejectedForMQTT() {
        let sensors = """
            board: simulated
            device-name: Kitchen Pi
            sensors:
              - {name: room, driver: bme280}
              - {name: Room, driver: tmp102}

            """
        #expect(problems(sensors + "mqtt: {broker: mqtt://x}") == [
            "sensors[1].name (line 5): 'Room' and 'room' (line 4) are the same MQTT topic level 'room' (and Home Assistant id); sensor names must differ in more than case"])
        // Without MQTT, the names are only shown; they may differ in case.
        #expect(problems(sensors).isEmpty)
    }
}

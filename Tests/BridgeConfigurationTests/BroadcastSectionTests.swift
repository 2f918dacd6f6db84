import Foundation
import Sensors
import Testing
@testable import BridgeConfiguration

/// `broadcast:` (BTHome): the sensor selection, objects, the bindkey file and the problems, with lines.
@Suite struct BroadcastSectionTests {
    static let sensors = """
        board: simulated
        sensors:
          - {name: env, driver: bme280, publish: [es-temperature, humidity, pressure]}
          - {name: battery, driver: max17048, publish: [battery-level]}
          - {name: pulse, driver: max30101, publish: [heart-rate-measurement]}
          - {name: body, driver: mcp9808, publish: [temperature-measurement]}
          - {name: soc, driver: cpu-temp}

        """

    @Test func absentMeansOff() throws {
        #expect(try load(Self.sensors).get().broadcast == nil)
    }

    /// The environment sensors and the battery: not the health data, nor a CPU temperature that publishes nothing.
    @Test func theShortFormBroadcastsTheEnvironmentSensorsAndTheBattery() throws {
        let settings = try #require(try load(Self.sensors + "broadcast: bthome\n").get().broadcast)
        #expect(settings.format == .bthome)
        #expect(settings.sensors.names == ["env", "battery"])
        #expect(settings.objects == [.temperature, .humidity, .pressure, .batteryLevel])
        #expect(settings.bindkey == nil)
    }

    @Test func bodyTemperatureOnlyWhenListedUnderHealthSensors() throws {
        let settings = try #require(try load(Self.sensors + "broadcast:\n  health-sensors: [body]\n  objects: [temperature]\n").get().broadcast)
        #expect(settings.sensors.names == ["env", "battery", "body"])
        #expect(settings.objects == [.temperature])
        let chosen = try #require(try load(Self.sensors + "broadcast: {format: bthome, sensors: [env]}\n").get().broadcast)
        #expect(chosen.sensors.names == ["env"])
        let listed = try #require(try load(Self.sensors + "broadcast: {sensors: [env, soc]}\n").get().broadcast)
        #expect(listed.sensors.names == ["env", "soc"])
        #expect(problems(Self.sensors + "broadcast:\n  sensors: [env, body]\n") == [
            "broadcast.sensors (line 9): 'body' carries health data (heart rate, SpO2 or body temperature); to send it off the device, list it under health-sensors instead",
        ])
    }

    @Test func heartRateAndSpO2StayOnGATT() {
        #expect(problems(Self.sensors + "broadcast:\n  health-sensors: [pulse]\n") == [
            "broadcast.health-sensors[0] (line 9): 'pulse' measures only heart rate or SpO2, which BTHome has no object for: they stay on GATT (the Heart Rate and Pulse Oximeter services); remove it here",
        ])
        #expect(problems(Self.sensors + "broadcast:\n  objects: [temperature, heart-rate, spo2]\n") == [
            "broadcast.objects[1] (line 9): BTHome has no heart-rate object: heart rate and SpO2 stay on GATT (the Heart Rate and Pulse Oximeter services); remove it here",
            "broadcast.objects[2] (line 9): BTHome has no SpO2 object: heart rate and SpO2 stay on GATT (the Heart Rate and Pulse Oximeter services); remove it here",
        ])
    }

    @Test func mistakesAreNamedWithTheirLine() {
        #expect(problems(Self.sensors + "broadcast: bthom\n") == [
            "broadcast (line 8): 'bthom' is not allowed here; did you mean 'bthome'?",
        ])
        #expect(problems(Self.sensors + "broadcast:\n  format: ruuvi\n  objects: [humidty, humidity, humidity]\n  sensor: [env]\n") == [
            "broadcast.format (line 9): 'ruuvi' is not allowed here (use one of bthome)",
            "broadcast.objects[0] (line 10): 'humidty' is not a BTHome object blesensor sends; did you mean 'humidity'?",
            "broadcast.objects[2] (line 10): 'humidity' is listed twice",
            "broadcast.sensor (line 11): unknown key 'sensor'; did you mean 'sensors'?",
        ])
        #expect(problems(Self.sensors + "broadcast: {objects: []}\n") == [
            "broadcast.objects (line 8): lists no object: name at least one of temperature, humidity, pressure, battery-level, or remove broadcast",
        ])
    }

    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bindkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theBindkeyIsReadFromItsFileNeverFromTheYAML() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bthome.key").path
        try "231D39c1d7cc1ab1aee224cd096db932\n".write(toFile: file, atomically: true, encoding: .utf8)
        let settings = try #require(try load(Self.sensors + "broadcast:\n  bindkey-file: \(file)\n").get().broadcast)
        #expect(settings.bindkey == [0x23, 0x1d, 0x39, 0xc1, 0xd7, 0xcc, 0x1a, 0xb1, 0xae, 0xe2, 0x24, 0xcd, 0x09, 0x6d, 0xb9, 0x32])
        #expect(settings.bindkeyFile == file)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file)
        #expect(SecretFile.exposure(of: file, holding: "the BTHome bindkey") == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(SecretFile.exposure(of: file, holding: "the BTHome bindkey") == "\(file) holds the BTHome bindkey and every user on this "
                + "system may read it (mode 0644): chown root:blesensor \(file) && chmod 0640 \(file)")

        try "231d39c1d7cc1ab1aee224cd096db9\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(problems(Self.sensors + "broadcast:\n  bindkey-file: \(file)\n") == [
            "broadcast.bindkey-file (line 9): \(file) must hold exactly 32 hex digits (a 16-octet BTHome bindkey like 231d39c1d7cc1ab1aee224cd096db932) and nothing else",
        ])
        #expect(problems(Self.sensors + "broadcast:\n  bindkey-file: \(folder.path)/missing\n") == [
            "broadcast.bindkey-file (line 9): \(folder.path)/missing does not exist: write 32 hex digits into it (e.g. from `openssl rand -hex 16`), then chown root:blesensor and chmod 0640 it",
        ])
        #expect(problems(Self.sensors + "broadcast:\n  bindkey-file: bthome.key\n") == [
            "broadcast.bindkey-file (line 9): 'bthome.key' is not an absolute path; write e.g. /etc/blesensor/bthome.key",
        ])
        #expect(problems(Self.sensors + "broadcast:\n  bindkey: 231d39c1d7cc1ab1aee224cd096db932\n") == [
            "broadcast.bindkey (line 9): the bindkey does not belong in this file (others may read it): write the 32 hex digits into a file, chown root:blesensor and chmod 0640 it, and name it with bindkey-file, e.g. /etc/blesensor/bthome.key",
        ])
    }
}

/// The commented `broadcast:` of the packaged configuration, uncommented, is valid as documented.
@Suite struct ShippedBroadcastTests {
    @Test func theDocumentedBroadcastSectionLoads() throws {
        let shipped = try String(contentsOfFile: repositoryRoot + "/systemd/blesensor.yaml", encoding: .utf8)
        let lines = shipped.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "# broadcast:"))
        var block = ["broadcast:"]
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("#   ") else { break }
            block.append(String(line.dropFirst(2)))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bindkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("bthome.key").path
        try "231d39c1d7cc1ab1aee224cd096db932\n".write(toFile: key, atomically: true, encoding: .utf8)
        let text = shipped + block.joined(separator: "\n").replacingOccurrences(of: "/etc/blesensor/bthome.key", with: key) + "\n"
        let result = ConfigurationLoader.load(yaml: text, fileName: "blesensor.yaml", boardsDirectories: [repositoryBoards],
                                              environment: [:], boardDetection: .assuming(model: "Raspberry Pi 4 Model B Rev 1.5"))
        if case let .failure(problems) = result { Issue.record("\(problems)") }
        let settings = try #require(try result.get().broadcast)
        #expect(block.count == 14)
        #expect(settings.sensors.names == ["body", "room"])
        #expect(settings.objects == [.temperature, .humidity, .pressure, .batteryLevel])
        #expect(settings.bindkey?.count == 16 && settings.bindkeyFile == key)
    }
}

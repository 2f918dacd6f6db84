import BLECore
import Foundation
import Sensors
import Testing
@testable import BridgeConfiguration

@Suite struct LoaderTests {
    @Test func fullFileGivesTheExactModel() throws {
        let yaml = """
            board: raspberry-pi-4b
            board-overrides:
              i2c-bus: 3
            transport: tcp:127.0.0.1:9000
            device-name: ward-7
            appearance: 0x0300
            address: C0:11:22:33:44:55
            advertising:
              interval: 1.5s
              services: [1809, 0x181A]
              max-centrals: 4
            device-information:
              manufacturer: ACME
              model: Bedside 2
              serial-number: "0042"
              pnp-id: {vendor-source: bluetooth, vendor: 0x004C, product: 7, version: 0x0201}
            sensors:
              - name: body
                driver: tmp102
                address: 73
                poll-interval: 2s
                calibration-offset: -0.25
                publish:
                  - {characteristic: temperature-measurement, mode: indicate}
              - name: room
                driver: bme280
                bus: 1
                calibration-offset: {humidity: 2, pressure: -150}
                options:
                  oversampling: {temperature: 2, pressure: 16, humidity: 1}
                publish: [es-temperature, humidity]
              - name: hall
                driver: gpio-pulse
                line: GPIO17
                options: {edge: rising, bias: pull-up}
              - name: probe
                driver: ds18b20
                id: 28-0316a2795dff
                poll-interval: 1m
            paths:
              state-directory: /srv/blesensor
              control-socket: /srv/blesensor/control.sock
            """
        let configuration = try load(yaml).get()
        let expected = BridgeConfiguration(
            board: BoardProfile(name: "raspberry-pi-4b", model: "Raspberry Pi 4 Model B", i2cBus: 3,
                                gpioChips: ["gpiochip0"], transport: "hci:0", simulated: false, deviceTreeModels: pi4Models),
            transport: "tcp:127.0.0.1:9000",
            deviceName: "ward-7",
            appearance: 0x0300,
            address: .fixedRandom(try #require(BluetoothAddress("C0:11:22:33:44:55"))),
            advertising: AdvertisingSettings(interval: .milliseconds(1500),
                                             services: [BluetoothUUID(0x1809), BluetoothUUID(0x181A)], maxCentrals: 4),
            sensors: [
                SensorConfiguration(name: "body", driver: .tmp102, i2cBus: 3, i2cAddress: 73, pollInterval: .seconds(2),
                                    calibrationOffsets: [.temperature: -0.25], publish: [.temperatureMeasurement]),
                SensorConfiguration(name: "room", driver: .bme280, i2cBus: 1, i2cAddress: 0x76, pollInterval: .seconds(1),
                                    calibrationOffsets: [.humidity: 2, .pressure: -150],
                                    options: DriverOptions(BME280Driver.Settings(temperatureOversampling: 2, pressureOversampling: 16, humidityOversampling: 1)),
                                    publish: [.environmentalTemperature, .humidity]),
                SensorConfiguration(name: "hall", driver: .gpioPulse, gpioLine: "GPIO17", pollInterval: .milliseconds(250),
                                    options: DriverOptions(GPIOPulseDriver.Settings(edge: "rising", bias: "pull-up")), publish: []),
                SensorConfiguration(name: "probe", driver: .ds18b20, oneWireID: "28-0316a2795dff", pollInterval: .seconds(60), publish: []),
            ],
            deviceInformation: DeviceInformationSettings(manufacturer: "ACME", model: "Bedside 2", serialNumber: "0042",
                                                         pnpVendorSource: 1, pnpVendorID: 0x004C, pnpProductID: 7, pnpProductVersion: 0x0201),
            paths: PathSettings(stateDirectory: "/srv/blesensor", controlSocket: "/srv/blesensor/control.sock"))
        #expect(configuration == expected)
    }

    @Test func defaultsFollowTheBoardTheSensorsAndTheEnvironment() throws {
        let yaml = """
            board: raspberry-pi-5
            sensors:
              - {name: battery, driver: max17048, publish: [battery-level]}
              - {name: pulse, driver: max30101, publish: [heart-rate-measurement]}
              - {name: room, driver: sht31, publish: [es-temperature, humidity]}
              - {name: body, driver: mcp9808, publish: [temperature-measurement]}
              - {name: soc, driver: cpu-temp, publish: [pressure]}
            """
        #expect(problems(yaml) == ["sensors[4].publish[0] (line 7): cpu-temp does not measure pressure; it measures temperature; it can publish temperature-measurement, intermediate-temperature, es-temperature"])
        let valid = yaml.replacing("publish: [pressure]", with: "publish: []")
        let environment = ["STATE_DIRECTORY": "/var/lib/blesensor-a:/var/lib/other", "RUNTIME_DIRECTORY": "/run/blesensor-a"]
        let configuration = try load(valid, environment: environment).get()
        #expect(configuration.transport == "hci:0")
        #expect(configuration.deviceName == "blesensor")
        #expect(configuration.address == .persistentRandom)
        #expect(configuration.appearance == 0)
        #expect(configuration.advertising == AdvertisingSettings(
            interval: .microseconds(152_500), services: [BluetoothUUID(0x180D), BluetoothUUID(0x181A), BluetoothUUID(0x1809)], maxCentrals: 1))
        #expect(configuration.deviceInformation == DeviceInformationSettings(manufacturer: "blesensor", model: "Raspberry Pi 5"))
        #expect(configuration.paths == PathSettings(stateDirectory: "/var/lib/blesensor-a", controlSocket: "/run/blesensor-a/control.sock"))
        #expect(configuration.sensors.map(\.pollInterval) == [.seconds(1), .milliseconds(250), .seconds(1), .seconds(1), .seconds(1)])
        #expect(configuration.sensors.map(\.i2cAddress) == [0x36, 0x57, 0x44, 0x18, nil])
        #expect(configuration.sensors.map(\.i2cBus) == [1, 1, 1, 1, nil])

        let bare = try load("board: simulated\nsensors: [{name: a, driver: tmp102}]").get()
        #expect(bare.paths == PathSettings(stateDirectory: "/var/lib/blesensor", controlSocket: "/run/blesensor/control.sock"))
        let user = PathSettings.defaults(environment: ["HOME": "/home/pi", "XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000)
        #expect(user == PathSettings(stateDirectory: "/home/pi/.local/state/blesensor", controlSocket: "/run/user/1000/blesensor/control.sock"))
        #expect(PathSettings.defaults(environment: [:], userID: 1000).controlSocket == "/tmp/blesensor-1000/control.sock")
        #expect(bare.transport == "virtual")
        #expect(bare.advertising.services.isEmpty)
    }

    @Test func everyProblemIsReportedAtOnceInFileOrder() {
        let yaml = """
            board: raspberry-pi-4b
            device-name: ""
            address: 40:11:22:33:44:55
            advertising:
              interval: 5ms
              max-centrals: 9
            sensors:
              - name: pulse
                driver: max30102
                poll-interval: 2s
                publish: [heart-rate-measurement]
              - name: body
                driver: tmp102
                address: 0x4g
                publish:
                  - {characteristic: temperature-measurement, mode: notify}
                  - humidity
              - name: pulse
                driver: gpio-pulse
                line: GPIO17
                options: {sample-rate: 100}
                publish: [heart-rate-measurement]
            """
        #expect(problems(yaml) == [
            "device-name (line 2): is 0 UTF-8 bytes; it must be 1…248",
            "address (line 3): 40:11:22:33:44:55 is not a random static address: its two most significant bits must be 1 (C0…FF in the first byte)",
            "advertising.interval (line 5): 5ms is out of range 20ms…10.24s",
            "advertising.max-centrals (line 6): 9 is out of range 1…8",
            "sensors[0].poll-interval (line 10): 2s is out of range 50ms…1s for max30102: its FIFO holds only ~320 ms of samples at 100 Hz",
            "sensors[1].address (line 14): 0x4g is not an I2C address (use 0x03…0x77, e.g. 0x48)",
            "sensors[1].publish[0].mode (line 16): temperature-measurement is indicated by the Health Thermometer service; mode notify is not allowed, use indicate",
            "sensors[1].publish[1] (line 17): tmp102 does not measure humidity; it measures temperature; it can publish temperature-measurement, intermediate-temperature, es-temperature",
            "sensors[2].name (line 18): 'pulse' is already the name of sensors[0] (line 8); sensor names must be unique",
            "sensors[2].options.sample-rate (line 21): gpio-pulse takes no 'sample-rate' option; it applies to max30102, max30101, max30100",
            "sensors[2].publish (line 22): heart-rate-measurement is already published by 'pulse' (line 11); each characteristic has one sensor",
        ])
    }

    @Test func unknownKeysSuggestTheClosestKnownOne() {
        let yaml = """
            board: raspberry-pi-4b
            sensors:
              - name: room
                driver: bme280
                pol-interval: 2s
                option: {}
            advertsing: {}
            colour: blue
            """
        #expect(problems(yaml) == [
            "sensors[0].pol-interval (line 5): unknown key 'pol-interval'; did you mean 'poll-interval'?",
            "sensors[0].option (line 6): unknown key 'option'; did you mean 'options'?",
            "advertsing (line 7): unknown key 'advertsing'; did you mean 'advertising'?",
            "colour (line 8): unknown key 'colour'; expected one of: board, board-overrides, transport, device-name, appearance, address, advertising, connection, device-information, sensors, paths, security, broadcast",
        ])
        #expect(problems("board: raspberry-pi-4b\nsensors: [{name: a, driver: tmp102, poll: 1s}]")
            == ["sensors[0].poll (line 2): unknown key 'poll'; did you mean 'poll-interval'?"])
        #expect(problems("board: raspbery-pi-4b\nsensors: [{name: a, driver: tmp10}]") == [
            "board (line 1): unknown board 'raspbery-pi-4b'; did you mean 'raspberry-pi-4b'? available: auto, raspberry-pi-3b-plus, raspberry-pi-4b, raspberry-pi-5, raspberry-pi-zero-2-w, simulated (searched \(repositoryBoards))",
            "sensors[0].driver (line 2): unknown driver 'tmp10'; did you mean 'tmp102'?",
        ])
    }

    @Test func wrongTypesSayWhatWasExpected() {
        #expect(problems("board: simulated\nsensors:\n  - {name: a, driver: tmp102, address: [1, 2]}") == [
            "sensors[0].address (line 3): expected an I2C address (use 0x03…0x77, e.g. 0x48), found a list",
        ])
        #expect(problems("board: simulated\nsensors: room") == ["sensors (line 2): expected a list of sensors, found 'room'"])
        #expect(problems("- a\n- b") == ["line 1: expected a map of board, board-overrides, transport, device-name…, found a list"])
        #expect(problems("board: simulated\nsensors: [{name: a, driver: tmp102, poll-interval: 5}]")
            == ["sensors[0].poll-interval (line 2): 5 has no unit: write 5ms, 5s, 5m or 5h"])
    }

    @Test func missingRequiredKeysAreNamed() {
        #expect(problems("device-name: x") == [
            "board (line 1): missing; name the board, one of auto, raspberry-pi-3b-plus, raspberry-pi-4b, raspberry-pi-5, raspberry-pi-zero-2-w, simulated",
            "sensors (line 1): missing; list at least one sensor (see systemd/blesensor.yaml)",
        ])
        #expect(problems("board: simulated\nsensors:\n  - driver: gpio-pulse") == [
            "sensors[0].name (line 3): missing; every sensor needs a unique name like room or pulse",
            "sensors[0].line (line 3): missing; gpio-pulse needs the GPIO line of the pulse input, e.g. line: GPIO17",
        ])
        #expect(problems("") == ["the file is empty; it needs at least board and sensors (see systemd/blesensor.yaml)"])
    }

    @Test func bme280IIRFilterAndDisabledChannels() throws {
        let yaml = """
            board: simulated
            sensors:
              - {name: room, driver: bme280, options: {iir-filter: 16, oversampling: {humidity: 0}}, publish: [es-temperature, pressure]}
              - {name: hall, driver: bme280, address: 0x77, options: {iir-filter: "off"}}
            """
        let sensors = try load(yaml).get().sensors
        #expect(sensors[0].options.settings(BME280Driver.Settings.self).iirFilter == .x16)
        #expect(sensors[0].options.settings(BME280Driver.Settings.self).humidityOversampling == 0)
        #expect(sensors[1].options.settings(BME280Driver.Settings.self).iirFilter == .off)
        #expect(problems("""
            board: simulated
            sensors:
              - {name: a, driver: bme280, options: {iir-filter: 3}}
              - {name: b, driver: tmp102, options: {iir-filter: 2}}
              - {name: c, driver: bme280, address: 0x77, options: {oversampling: {humidity: 0}}, publish: [humidity]}
            """) == [
            "sensors[0].options.iir-filter (line 3): 3 is not an IIR filter coefficient; use one of off, 2, 4, 8, 16",
            "sensors[1].options.iir-filter (line 4): tmp102 takes no 'iir-filter' option; it applies to bme280",
            "sensors[2].publish (line 5): 'humidity' publishes humidity, but oversampling.humidity is 0 (the channel is skipped and measures nothing); enable it or remove 'humidity'",
        ])
    }

    @Test func sensorFieldChecks() {
        let yaml = """
            board: simulated
            sensors:
              - {name: "a b", driver: tmp102, address: 0x78}
              - {name: c, driver: ds18b20, id: 28-XYZ, bus: 1}
              - {name: d, driver: bme280, calibration-offset: {heart-rate: 1}, options: {oversampling: {pressure: 3}}}
              - {name: e, driver: max30102, options: {led-current-ma: 60, sample-rate: 30}, simulation: {celsius: 20}}
              - {name: f, driver: gpio-pulse, line: "GPIO 17", options: {edge: raising}}
              - {name: g, driver: tmp102, address: 0x48}
            """
        #expect(problems(yaml) == [
            "sensors[0].name (line 3): 'a b' is not a sensor name: use letters, digits, '-' and '_' (e.g. room-1)",
            "sensors[0].address (line 3): 0x78 is outside the 7-bit I2C address range (use 0x03…0x77, e.g. 0x48)",
            "sensors[1].bus (line 4): 'bus' applies to the I2C drivers (tmp102, mcp9808, bme280, sht31, sht4x, max30102, max30101, max17048, tmp117, max30205, mlx90614, max30100, aht20, shtc3, hdc1080), not to ds18b20",
            "sensors[1].id (line 4): '28-XYZ' is not a 1-Wire id like 28-0316a2795dff (ls /sys/bus/w1/devices)",
            "sensors[2].calibration-offset.heart-rate (line 5): bme280 does not measure heart-rate; it measures temperature, humidity, pressure",
            "sensors[2].options.oversampling.pressure (line 5): 3 is not one of 0, 1, 2, 4, 8, 16",
            "sensors[3].options.sample-rate (line 6): 30 is not one of 50, 100, 200, 400 Hz",
            "sensors[3].options.led-current-ma (line 6): 60 is out of range 0…51 mA",
            "sensors[3].simulation.celsius (line 6): 'celsius' does not apply to max30102: max30102 does not measure temperature; it measures heart-rate, spo2",
            "sensors[4].line (line 7): 'GPIO 17' is not a GPIO line: use its name like GPIO17 (see gpioinfo) or an offset 0…1023",
            "sensors[4].options.edge (line 7): 'raising' is not allowed here; did you mean 'rising'?",
        ])
        // Two chips on one bus address is caught once the entries are otherwise valid.
        #expect(problems("board: simulated\nsensors:\n  - {name: a, driver: tmp102}\n  - {name: b, driver: tmp102, address: 72}") == [
            "sensors[1].address (line 4): 0x48 on I2C bus 1 is already used by 'a' (line 3); give one chip another address",
        ])
    }

    @Test func securityDefaultsToOpenProfilesAndJustWorks() throws {
        let base = "board: simulated\nsensors: [{name: a, driver: tmp102}]\n"
        for text in [base, base + "security: {}", base + "security:"] {
            #expect(try load(text).get().security == SecuritySettings())
        }
    }

    @Test func securitySettingsAreReadAndChecked() throws {
        let base = "board: simulated\nsensors: [{name: a, driver: tmp102}]\n"
        let settings = try load(base + """
            security:
              pairing: window
              window-at-start: 5m
              new-centrals-every: 0s
              io-capability: display-only
              passkey: "012345"
              secure-connections-only: true
              minimum-key-size: 12
              max-bonds: 3
              when-full: refuse-new
              weaker-repairing: refuse
              security-request: true
              require-encryption: [2A1C, 0x2A6E]
              require-authentication: [2A37]
              store-and-forward: 20
            """).get().security
        var expected = SecuritySettings()
        expected.pairing = .window
        expected.windowAtStart = .seconds(300)
        expected.newCentralsEvery = .zero
        expected.ioCapability = .displayOnly
        expected.passkey = .fixed(12345)
        expected.secureConnectionsOnly = true
        expected.minimumKeySize = 12
        expected.maxBonds = 3
        expected.whenFull = .refuseNew
        expected.allowWeakerRepairing = false
        expected.securityRequest = true
        expected.requireEncryption = [BluetoothUUID(0x2A1C), BluetoothUUID(0x2A6E)]
        expected.requireAuthentication = [BluetoothUUID(0x2A37)]
        expected.storeAndForward = 20
        #expect(settings == expected)

        #expect(problems(base + """
            security:
              pairing: sometimes
              passkey: 12345
              minimum-key-size: 6
              require-encryption: [2A00, zz]
              bonding: true
            """) == [
            "security.pairing (line 4): 'sometimes' is not allowed here (use one of always, window, never)",
            "security.passkey (line 5): '12345' is not 'random' or a 6-digit passkey like 123456 (quote one with leading zeros: \"012345\")",
            "security.minimum-key-size (line 6): 6 is out of range 7…16",
            "security.require-encryption[0] (line 7): 2A00 is not a characteristic blesensord serves (2A37, 2A38, 2A39, 2A1C, 2A1D, 2A1E, 2A21, 2A6E, 2A6F, 2A6D, 2A19, 2A29, 2A24, 2A26, 2A28, 2A25, 2A50)",
            "security.require-encryption[1] (line 7): 'zz' is not a UUID: write 2A37 or 0x2A37",
            "security.bonding (line 8): unknown key 'bonding'; expected one of: pairing, window-at-start, new-centrals-every, io-capability, passkey, passkey-file, confirm-command, admin-group, secure-connections-only, minimum-key-size, max-bonds, when-full, weaker-repairing, security-request, require-encryption, require-authentication, store-and-forward",
        ])
        #expect(problems(base + "security:\n  io-capability: keyboard-only") == [
            "security.io-capability (line 4): nobody types a passkey on a headless board; use display-only (the central types our passkey) or no-input-no-output",
        ])
        // Authentication needs a person: a comparison nobody looks at, or Just Works, cannot give it.
        for io in ["display-yes-no", "keyboard-display"] {
            #expect(problems(base + "security:\n  io-capability: \(io)\n  require-authentication: [2A37]") == [
                "security.io-capability (line 4): with no one to compare the numbers, a numeric comparison gives an unauthenticated key and cannot satisfy require-authentication; "
                    + "use display-only (the central types our passkey) or set confirm-command to a program that asks a person",
            ])
            let confirmed = try load(base + "security:\n  io-capability: \(io)\n  confirm-command: /usr/local/bin/ask\n  require-authentication: [2A37]").get().security
            #expect(confirmed.confirmCommand == "/usr/local/bin/ask")
        }
        #expect(problems(base + "security:\n  require-authentication: [2A37]") == [
            "security.require-authentication (line 4): io-capability no-input-no-output pairs with Just Works only, whose keys are never authenticated, "
                + "so these characteristics could never be read; set io-capability: display-only (the central types our passkey) or move them to require-encryption",
        ])
        #expect(problems(base + "security:\n  io-capability: display-only\n  confirm-command: ask") == [
            "security.confirm-command (line 5): 'ask' is not an absolute path; write the full path of the executable, e.g. /usr/local/bin/confirm-pairing",
        ])
        #expect(problems(base + "security:\n  io-capability: display-only\n  confirm-command: /bin/ask") == [
            "security.confirm-command (line 5): numeric comparison needs io-capability display-yes-no or keyboard-display; set one of those or remove confirm-command",
        ])
        #expect(try load(base + "security:\n  admin-group: blesensor-admin").get().security.adminGroup == "blesensor-admin")
        #expect(problems(base + "security:\n  admin-group: \"1000\"") == [
            "security.admin-group (line 4): '1000' is not a group name (letters, digits, '.', '_', '-'; not a number)",
        ])
        // A passkey pairing defaults to LE Secure Connections only: a legacy passkey's key falls to
        // anyone who recorded the pairing.
        #expect(try load(base + "security:\n  io-capability: display-only").get().security.secureConnectionsOnly)
        #expect(try !load(base + "security:\n  io-capability: display-only\n  secure-connections-only: false").get().security.secureConnectionsOnly)
        #expect(try !load(base + "security:\n  pairing: always").get().security.secureConnectionsOnly)
        #expect(problems(base + "security:\n  window-at-start: 5m") == [
            "security.window-at-start (line 4): a pairing window only applies with pairing: window",
        ])
        #expect(problems(base + "security:\n  pairing: window\n  window-at-start: 2h") == [
            "security.window-at-start (line 5): 2h is out of range 0s…1h",
        ])
        #expect(problems(base + "security:\n  passkey: \"123456\"") == [
            "security.passkey (line 4): a passkey is only shown with io-capability display-only or keyboard-display; set one of those or remove the passkey",
        ])
    }

    @Test func yamlSyntaxErrorsGiveLineAndColumn() {
        let found = problems("board: simulated\nsensors:\n  - name: a\n    driver: [tmp102\n")
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("line 5, column 1: YAML syntax error:") == true)
        let duplicate = problems("board: simulated\nboard: raspberry-pi-4b\nsensors: []")
        #expect(duplicate.count == 1)
        #expect(duplicate.first?.contains("'board' given twice in the same map; keep one") == true)
    }

    @Test func missingFileNamesThePath() {
        let result = ConfigurationLoader.load(path: "/nonexistent/blesensor.yaml", boardsDirectories: [repositoryBoards], environment: [:])
        guard case let .failure(problems) = result else {
            Issue.record("a missing file loaded")
            return
        }
        #expect(problems.problems.map(\.description) == [
            "/nonexistent/blesensor.yaml does not exist: create it (see systemd/blesensor.yaml for a commented example) or pass another file",
        ])
        #expect(problems.description.hasPrefix("/nonexistent/blesensor.yaml: 1 problem:\n  /nonexistent/blesensor.yaml does not exist"))
        let directory = ConfigurationLoader.load(path: repositoryBoards, boardsDirectories: [], environment: [:])
        #expect(throws: ConfigurationProblems.self) { try directory.get() }
    }
}

/// A fixed passkey kept in a file of its own, and who may read the files that hold one.
@Suite struct PasskeyFileTests {
    static let base = "board: simulated\nsensors: [{name: a, driver: tmp102}]\nsecurity:\n  io-capability: display-only\n"

    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func thePasskeyIsReadFromItsFile() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("passkey").path
        try "012345\n".write(toFile: file, atomically: true, encoding: .utf8)
        let settings = try load(Self.base + "  passkey-file: \(file)").get().security
        #expect(settings.passkey == .fixed(12345) && settings.passkeyFile == file)

        try "12345\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(problems(Self.base + "  passkey-file: \(file)") == [
            "security.passkey-file (line 5): \(file) must hold exactly six digits (a passkey like 012345) and nothing else",
        ])
        #expect(problems(Self.base + "  passkey-file: \(folder.path)/missing") == [
            "security.passkey-file (line 5): \(folder.path)/missing does not exist: write the six digits into it, then chown root:blesensor and chmod 0640 it",
        ])
        #expect(problems(Self.base + "  passkey: \"123456\"\n  passkey-file: \(file)") == [
            "security.passkey-file (line 6): give either passkey or passkey-file, not both",
        ])
    }

    @Test func aFileHoldingThePasskeyThatEveryoneMayReadIsNamed() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("passkey").path
        try "123456\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let settings = try load(Self.base + "  passkey-file: \(file)").get().security
        #expect(SecretFile.passkeyHolders(configurationPath: "/etc/blesensor/blesensor.yaml", settings) == [file])
        #expect(SecretFile.exposure(of: file) == "\(file) holds the passkey and every user on this system may read it (mode 0644): "
            + "chown root:blesensor \(file) && chmod 0640 \(file)")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file)
        #expect(SecretFile.exposure(of: file) == nil)
        // Written into the configuration itself, the passkey makes that file the one to guard.
        let inline = try load(Self.base + "  passkey: \"123456\"").get().security
        #expect(SecretFile.passkeyHolders(configurationPath: "/etc/blesensor/blesensor.yaml", inline) == ["/etc/blesensor/blesensor.yaml"])
        #expect(SecretFile.passkeyHolders(configurationPath: "/etc/blesensor/blesensor.yaml", SecuritySettings()).isEmpty)
    }
}

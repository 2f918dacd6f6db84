import BLECore

/// Loads `/etc/blesensor/blesensor.yaml` (or any file, or text) into a validated `BridgeConfiguration`,
/// reporting every problem at once with its path and line. Never traps, whatever the input.
public enum ConfigurationLoader {
    public static let defaultPath = "/etc/blesensor/blesensor.yaml"

    static let keys = ["board", "board-overrides", "transport", "device-name", "appearance", "address",
                       "advertising", "connection", "device-information", "sensors", "paths", "security", "metrics", "mqtt",
                       "broadcast"]

    /// Reads and validates the file at `path`. `environment` supplies STATE_DIRECTORY and RUNTIME_DIRECTORY
    /// and, with `userID` (the user the daemon runs as), the path defaults (`PathSettings.defaults`);
    /// for the path defaults, so tests pass their own.
    /// `boardDetection` tells `board: auto` which machine this is (the device tree by default).
    public static func load(path: String, boardsDirectories: [String],
                            environment: [String: String], userID: UInt32 = 0,
                            boardDetection: BoardDetection = .machine) -> Result<BridgeConfiguration, ConfigurationProblems> {
        switch YAMLDocument.contents(path: path) {
        case let .success(text):
            return load(yaml: text, fileName: path, boardsDirectories: boardsDirectories, environment: environment, userID: userID,
                        boardDetection: boardDetection)
        case let .failure(problem):
            return .failure(ConfigurationProblems(fileName: path, problems: [problem]))
        }
    }

    /// Validates configuration text; `fileName` only names it in the problems.
    public static func load(yaml: String, fileName: String, boardsDirectories: [String],
                            environment: [String: String], userID: UInt32 = 0,
                            boardDetection: BoardDetection = .machine) -> Result<BridgeConfiguration, ConfigurationProblems> {
        var problems = ProblemList()
        let configuration = parse(yaml: yaml, boardsDirectories: boardsDirectories, environment: environment, userID: userID,
                                  boardDetection: boardDetection, problems: &problems)
        guard problems.isEmpty, let configuration else {
            return .failure(ConfigurationProblems(fileName: fileName, problems: problems.sorted(),
                                                  boardDetectionFailure: problems.boardDetectionFailure))
        }
        return .success(configuration)
    }

    private static func parse(yaml: String, boardsDirectories: [String], environment: [String: String], userID: UInt32,
                              boardDetection: BoardDetection, problems: inout ProblemList) -> BridgeConfiguration? {
        let root: YAMLValue
        switch YAMLDocument.compose(yaml) {
        case let .success(value?):
            root = value
        case .success(nil):
            problems.add("", nil, "the file is empty; it needs at least board and sensors (see systemd/blesensor.yaml)")
            return nil
        case let .failure(problem):
            problems.append(problem)
            return nil
        }
        guard let map = root.map(path: "", known: keys, problems: &problems) else { return nil }

        let (profile, boardChoice) = boardProfile(map, directories: boardsDirectories, detection: boardDetection, problems: &problems)
        var board = profile
        if let overrides = map["board-overrides"], board != nil {
            applyOverrides(overrides, to: &board!, problems: &problems)
        }
        let transport = map["transport"].map { BoardLoader.transport($0, path: "transport", problems: &problems) } ?? board?.transport
        let deviceName = map["device-name"].map { utf8Text($0, path: "device-name", bytes: BridgeConfiguration.deviceNameBytes, problems: &problems) } ?? "blesensor"
        let address = map["address"].map { addressSetting($0, problems: &problems) } ?? .persistentRandom

        let sensors = sensorList(map, board: board, mqtt: map["mqtt"] != nil, problems: &problems)
        let publications = sensors?.flatMap(\.publish) ?? []
        let appearance = map["appearance"].map {
            $0.integer(path: "appearance", in: 0...0xFFFF, expected: "a GAP appearance like 0x0340", problems: &problems).map(UInt16.init)
        } ?? defaultAppearance(publications)
        let advertising = advertisingSettings(map["advertising"], publications: publications, problems: &problems)
        let connection = connectionSettings(map["connection"], problems: &problems)
        let deviceInformation = deviceInformationSettings(map["device-information"], board: board, problems: &problems)
        let paths = pathSettings(map["paths"], environment: environment, userID: userID, problems: &problems)
        let security = securitySettings(map["security"], problems: &problems)
        let metrics = metricsSettings(map["metrics"], sensors: sensors, problems: &problems)
        let mqtt = map["mqtt"].flatMap { mqttSettings($0, sensors: sensors, problems: &problems) }
        let broadcast = broadcastSettings(map["broadcast"], sensors: sensors, problems: &problems)
        if let connection, let advertising, connection.lastSlotForBonded, advertising.maxCentrals < 2, let item = map["connection"] {
            problems.add("connection.last-slot-for-bonded", item, "needs advertising: max-centrals 2 or more: with one slot it would keep "
                         + "every new central out, pairing included")
        }

        guard problems.isEmpty, let board, let transport, let deviceName, let appearance, let address, let sensors,
              let advertising, let connection, let deviceInformation, let paths, let security, let metrics else { return nil }
        var configuration = BridgeConfiguration(board: board, transport: transport, deviceName: deviceName, appearance: appearance,
                                                address: address, advertising: advertising, sensors: sensors,
                                                deviceInformation: deviceInformation, paths: paths, security: security)
        configuration.boardChoice = boardChoice
        configuration.connection = connection
        configuration.metrics = metrics
        configuration.mqtt = mqtt
        configuration.broadcast = broadcast
        return configuration
    }

    // MARK: board

    private static func boardProfile(_ map: YAMLMap, directories: [String], detection: BoardDetection,
                                     problems: inout ProblemList) -> (BoardProfile?, BoardChoice?) {
        let available = BoardLoader.availableBoards(in: directories).filter { $0 != BoardLoader.autoName }
        let choices = (["auto"] + available).joined(separator: ", ")
        guard let value = map["board"] else {
            problems.add("board", map.line, "missing; name the board, one of \(choices)")
            return (nil, nil)
        }
        guard let name = value.text(path: "board", expected: "a board name like raspberry-pi-4b or auto", problems: &problems) else { return (nil, nil) }
        guard BoardLoader.isValidName(name) else {
            problems.add("board", value, "'\(abbreviated(name))' is not a board name; use one of \(choices)")
            return (nil, nil)
        }
        if name == BoardLoader.autoName {
            switch BoardLoader.resolveAuto(detection: detection, directories: directories) {
            case let .success((board, choice)):
                return (board, choice)
            case let .failure(failure):
                // Never a silent fallback (to simulated, say): the user names the board instead.
                problems.add("board", value, "auto: \(failure.reason); set board: to one of \(available.joined(separator: ", "))")
                problems.boardDetectionFailure = failure.reason
                problems.append(boardProblems: failure.boardProblems, at: value.line)
                return (nil, nil)
            }
        }
        switch BoardLoader.load(name: name, directories: directories) {
        case let .found(board):
            return (board, nil)
        case let .invalid(boardProblems):
            problems.append(boardProblems: boardProblems, at: value.line)
        case .notFound:
            let hint = suggestion(for: name, among: available).map { "did you mean '\($0)'? " } ?? ""
            let searched = directories.isEmpty ? "" : " (searched \(directories.joined(separator: ", ")))"
            problems.add("board", value, "unknown board '\(name)'; \(hint)available: \(choices)\(searched)")
        }
        return (nil, nil)
    }

    /// `board-overrides:` changes what this installation wires differently from the stock board
    /// (another I2C bus, a chip list); transport has its own top-level key.
    private static func applyOverrides(_ value: YAMLValue, to board: inout BoardProfile, problems: inout ProblemList) {
        guard let map = value.map(path: "board-overrides", known: ["model", "i2c-bus", "gpio-chips"], problems: &problems) else { return }
        if let model = map["model"].flatMap({ utf8Text($0, path: map.path("model"), bytes: 1...248, problems: &problems) }) {
            board.model = model
        }
        if let bus = map["i2c-bus"]?.integer(path: map.path("i2c-bus"), in: 0...1023, expected: "an I2C bus number like 1", problems: &problems) {
            board.i2cBus = bus
        }
        if let chips = map["gpio-chips"].flatMap({ BoardLoader.gpioChips($0, path: map.path("gpio-chips"), problems: &problems) }) {
            board.gpioChips = chips
        }
    }

    // MARK: scalars

    /// Text whose UTF-8 length is in `bytes` (the GAP device name is at most 248 bytes).
    static func utf8Text(_ value: YAMLValue, path: String, bytes: ClosedRange<Int>, problems: inout ProblemList) -> String? {
        guard let text = value.text(path: path, expected: "text", problems: &problems) else { return nil }
        guard bytes.contains(text.utf8.count) else {
            problems.add(path, value, "is \(text.utf8.count) UTF-8 bytes; it must be \(bytes.lowerBound)…\(bytes.upperBound)")
            return nil
        }
        return text
    }

    /// `random`, `public` or a random static address, as `blesensord --address` takes it.
    private static func addressSetting(_ value: YAMLValue, problems: inout ProblemList) -> AddressSetting? {
        guard let text = value.text(path: "address", expected: "random, public or an address like C0:11:22:33:44:55", problems: &problems) else { return nil }
        switch AddressSetting.parse(text) {
        case let .success(setting): return setting
        case let .failure(error):
            problems.add("address", value, error.description)
            return nil
        }
    }

    /// What phones show before connecting: the first published characteristic decides.
    static func defaultAppearance(_ publications: [PublishedCharacteristic]) -> UInt16 {
        switch publications.first {
        case .heartRateMeasurement: return 0x0340 // Generic Heart Rate Sensor
        case .temperatureMeasurement, .intermediateTemperature: return 0x0300 // Generic Thermometer
        case .environmentalTemperature, .humidity, .pressure: return 0x0540 // Generic Sensor
        case .plxContinuousMeasurement: return 0x0C40 // Generic Pulse Oximeter
        case .batteryLevel, nil: return 0x0000 // Unknown
        }
    }

    // MARK: sensors

    /// With `mqtt`, names must also differ as MQTT topic levels (they name topics and Home Assistant ids).
    private static func sensorList(_ map: YAMLMap, board: BoardProfile?, mqtt: Bool, problems: inout ProblemList) -> [SensorConfiguration]? {
        guard let value = map["sensors"] else {
            problems.add("sensors", map.line, "missing; list at least one sensor (see systemd/blesensor.yaml)")
            return nil
        }
        guard let items = value.list(path: "sensors", of: "sensors", problems: &problems) else { return nil }
        guard !items.isEmpty else {
            problems.add("sensors", value, "the list is empty; add at least one sensor")
            return nil
        }
        let sections = items.enumerated().map { index, item in
            SensorSection(item, path: "sensors[\(index)]", board: board, problems: &problems)
        }
        checkAcrossSensors(sections, problems: &problems)
        if mqtt { checkTopicLevels(sections, problems: &problems) }
        let configurations = sections.compactMap(\.configuration)
        return configurations.count == sections.count ? configurations : nil
    }

    /// Names are unique, a characteristic has one publisher, and two chips cannot share a bus address.
    private static func checkAcrossSensors(_ sections: [SensorSection], problems: inout ProblemList) {
        for (index, section) in sections.enumerated() {
            let earlier = sections[..<index]
            if let name = section.name, let first = earlier.first(where: { $0.name == name }) {
                problems.add("\(section.path).name", section.nameLine, "'\(name)' is already the name of \(first.path)\(onLine(first.nameLine)); sensor names must be unique")
            }
            for publication in section.publications {
                for other in earlier {
                    guard let clash = other.publications.first(where: { $0.characteristic == publication.characteristic }) else { continue }
                    problems.add("\(section.path).publish", publication.line,
                                 "\(publication.characteristic.rawValue) is already published by \(other.name.map { "'\($0)'" } ?? other.path)\(onLine(clash.line)); each characteristic has one sensor")
                    break
                }
            }
            if let mine = section.configuration, let address = mine.i2cAddress, let bus = mine.i2cBus,
               let other = earlier.first(where: { $0.configuration?.i2cAddress == address && $0.configuration?.i2cBus == bus }) {
                problems.add("\(section.path).address", section.i2cLine,
                             "\(hex(Int(address), digits: 2)) on I2C bus \(bus) is already used by '\(other.name ?? other.path)'\(onLine(other.i2cLine)); give one chip another address")
            }
        }
    }

    /// Two names that differ only in case would publish to one MQTT topic and one Home Assistant
    /// unique_id, mixing both sensors' values into one entity.
    private static func checkTopicLevels(_ sections: [SensorSection], problems: inout ProblemList) {
        for (index, section) in sections.enumerated() {
            guard let name = section.name else { continue }
            let level = MQTTSettings.topicLevel(name)
            guard let first = sections[..<index].first(where: { $0.name != nil && $0.name != name && MQTTSettings.topicLevel($0.name!) == level }) else { continue }
            problems.add("\(section.path).name", section.nameLine,
                         "'\(name)' and '\(first.name!)'\(onLine(first.nameLine)) are the same MQTT topic level '\(level)' "
                             + "(and Home Assistant id); sensor names must differ in more than case")
        }
    }

    static func onLine(_ line: Int?) -> String { line.map { " (line \($0))" } ?? "" }
}

import BLECore

/// The smaller top-level sections: advertising, device-information and paths.
extension ConfigurationLoader {
    /// One of the intervals Apple recommends after the fast phase.
    static let defaultAdvertisingInterval = Duration.microseconds(152_500)

    /// Services default to those of the published characteristics, in sensor order; Battery and
    /// Device Information are found after connecting and would only crowd the 31-byte payload.
    static func advertisingSettings(_ value: YAMLValue?, publications: [PublishedCharacteristic],
                                    problems: inout ProblemList) -> AdvertisingSettings? {
        var defaultServices: [BluetoothUUID] = []
        for publication in publications where publication != .batteryLevel && !defaultServices.contains(publication.serviceUUID) {
            defaultServices.append(publication.serviceUUID)
        }
        var settings = AdvertisingSettings(interval: defaultAdvertisingInterval, services: defaultServices, maxCentrals: 1)
        guard let value else { return settings }
        guard let map = value.map(path: "advertising", known: ["interval", "services", "max-centrals", "fast-interval", "fast-period", "tx-power-level"], problems: &problems) else { return nil }
        var valid = true
        valid = durationSetting(map, "interval", in: AdvertisingSettings.intervalRange, rangeText: "20ms…10.24s",
                                into: &settings.interval, problems: &problems) && valid
        valid = durationSetting(map, "fast-interval", in: AdvertisingSettings.intervalRange, rangeText: "20ms…10.24s",
                                into: &settings.fastInterval, problems: &problems) && valid
        valid = durationSetting(map, "fast-period", in: Duration.zero...Duration.seconds(3600), rangeText: "0s…1h",
                                into: &settings.fastPeriod, problems: &problems) && valid
        if let item = map["services"] {
            if let services = serviceList(item, path: map.path("services"), problems: &problems) {
                settings.services = services
            } else {
                valid = false
            }
        }
        if let item = map["tx-power-level"] {
            if let include = item.boolean(path: map.path("tx-power-level"), problems: &problems) {
                settings.txPowerLevel = include
            } else {
                valid = false
            }
        }
        if let item = map["max-centrals"] {
            if let count = item.integer(path: map.path("max-centrals"), in: AdvertisingSettings.maxCentralsRange, expected: "a number of centrals 1…8", problems: &problems) {
                settings.maxCentrals = count
            } else {
                valid = false
            }
        }
        return valid ? settings : nil
    }

    /// An optional duration key within `range`: stored in `target` when valid; false after a problem.
    static func durationSetting(_ map: YAMLMap, _ key: String, in range: ClosedRange<Duration>, rangeText: String,
                                into target: inout Duration, problems: inout ProblemList) -> Bool {
        guard let item = map[key] else { return true }
        guard let duration = item.duration(path: map.path(key), problems: &problems) else { return false }
        guard range.contains(duration) else {
            problems.add(map.path(key), item, "\(formatDuration(duration)) is out of range \(rangeText)")
            return false
        }
        target = duration
        return true
    }

    private static func serviceList(_ value: YAMLValue, path: String, problems: inout ProblemList) -> [BluetoothUUID]? {
        guard let items = value.list(path: path, of: "service UUIDs like 180D", problems: &problems) else { return nil }
        var services: [BluetoothUUID] = []
        var valid = true
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let text = item.text(path: itemPath, expected: "a service UUID like 180D", problems: &problems) else {
                valid = false
                continue
            }
            guard let uuid = BluetoothUUID(text) else {
                problems.add(itemPath, item, "'\(abbreviated(text))' is not a UUID: write 180D, 0x180D or the 36-character form")
                valid = false
                continue
            }
            if services.contains(uuid) {
                problems.add(itemPath, item, "\(text) is listed twice")
                valid = false
            }
            services.append(uuid)
        }
        return valid ? services : nil
    }

    /// Device Information (0x180A); the model defaults to the board's model.
    static func deviceInformationSettings(_ value: YAMLValue?, board: BoardProfile?, problems: inout ProblemList) -> DeviceInformationSettings? {
        var settings = DeviceInformationSettings(manufacturer: "blesensor", model: board?.model ?? "")
        guard let value else { return board == nil ? nil : settings }
        let section = "device-information"
        guard let map = value.map(path: section, known: ["manufacturer", "model", "serial-number", "pnp-id"], problems: &problems) else { return nil }
        let before = problems.problems.count
        // 512 bytes is the longest attribute value ATT allows.
        if let item = map["manufacturer"], let text = utf8Text(item, path: map.path("manufacturer"), bytes: 1...512, problems: &problems) {
            settings.manufacturer = text
        }
        if let item = map["model"], let text = utf8Text(item, path: map.path("model"), bytes: 1...512, problems: &problems) {
            settings.model = text
        }
        if let item = map["serial-number"], let text = utf8Text(item, path: map.path("serial-number"), bytes: 1...512, problems: &problems) {
            settings.serialNumber = text
        }
        if let item = map["pnp-id"] { pnpID(item, path: map.path("pnp-id"), into: &settings, problems: &problems) }
        return problems.problems.count == before && board != nil ? settings : nil
    }

    private static func pnpID(_ value: YAMLValue, path: String, into settings: inout DeviceInformationSettings,
                              problems: inout ProblemList) {
        guard let map = value.map(path: path, known: ["vendor-source", "vendor", "product", "version"], problems: &problems) else { return }
        if let item = map["vendor-source"], let source = item.choice(path: map.path("vendor-source"), among: ["bluetooth", "usb"], problems: &problems) {
            settings.pnpVendorSource = source == "bluetooth" ? 1 : 2
        }
        func field(_ key: String) -> UInt16? {
            map[key]?.integer(path: map.path(key), in: 0...0xFFFF, expected: "a 16-bit number like 0x1D6B", problems: &problems).map(UInt16.init)
        }
        if let vendor = field("vendor") { settings.pnpVendorID = vendor }
        if let product = field("product") { settings.pnpProductID = product }
        if let version = field("version") { settings.pnpProductVersion = version }
    }

    /// systemd passes StateDirectory= and RuntimeDirectory= as STATE_DIRECTORY / RUNTIME_DIRECTORY
    /// (colon-separated when several are configured; the first is ours).
    static func pathSettings(_ value: YAMLValue?, environment: [String: String], userID: UInt32, problems: inout ProblemList) -> PathSettings? {
        var settings = PathSettings.defaults(environment: environment, userID: userID)
        guard let value else { return settings }
        guard let map = value.map(path: "paths", known: ["state-directory", "control-socket"], problems: &problems) else { return nil }
        var valid = true
        func absolute(_ key: String) -> String? {
            guard let item = map[key] else { return nil }
            guard let text = item.text(path: map.path(key), expected: "an absolute path", problems: &problems) else {
                valid = false
                return nil
            }
            guard text.hasPrefix("/"), !text.contains("\0") else {
                problems.add(map.path(key), item, "'\(abbreviated(text))' is not an absolute path; start it with /")
                valid = false
                return nil
            }
            return text
        }
        if let state = absolute("state-directory") { settings.stateDirectory = state }
        if let socket = absolute("control-socket") {
            // sun_path holds 108 bytes including the terminating NUL.
            if socket.utf8.count > 107 {
                problems.add(map.path("control-socket"), map["control-socket"]?.line, "is \(socket.utf8.count) bytes; a Unix socket path holds at most 107")
                valid = false
            }
            settings.controlSocket = socket
        }
        return valid ? settings : nil
    }
}

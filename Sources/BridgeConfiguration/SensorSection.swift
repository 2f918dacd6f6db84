import BLECore
import Sensors

/// One `sensors[i]` entry: parsed, checked against its driver and resolved against the board.
/// Cross-sensor checks (unique names, one publisher per characteristic, I2C address clashes) are
/// made by the loader from the located facts kept here.
struct SensorSection {
    static let keys = ["name", "driver", "bus", "address", "line", "id", "poll-interval",
                       "calibration-offset", "options", "publish", "simulation", "unit", "device"]

    let path: String
    var name: String?
    var nameLine: Int?
    /// Each publication with the line of its list entry.
    var publications: [(characteristic: PublishedCharacteristic, line: Int?)] = []
    var i2cLine: Int?
    /// Nil when the entry has a problem; its problems are in the loader's list.
    var configuration: SensorConfiguration?

    /// The heart-rate drivers sample into a FIFO that holds ~320 ms at 100 Hz, so they are polled faster.
    static func isHeartRate(_ driver: SensorDriver) -> Bool { driver.quantities.contains(.heartRate) }

    static func defaultPollInterval(_ driver: SensorDriver) -> Duration { driver.descriptor.defaultPollInterval }

    static func pollRange(_ driver: SensorDriver) -> ClosedRange<Duration> { driver.descriptor.pollRange }

    static var i2cDrivers: [SensorDriver] { SensorDriver.allCases.filter { $0.defaultAddress != nil } }

    init(_ value: YAMLValue, path: String, board: BoardProfile?, problems: inout ProblemList) {
        self.path = path
        let before = problems.problems.count
        guard let map = value.map(path: path, known: Self.keys, problems: &problems) else { return }

        if let nameValue = map["name"] {
            nameLine = nameValue.line
            name = Self.sensorName(nameValue, path: map.path("name"), problems: &problems)
        } else {
            problems.add(map.path("name"), map.line, "missing; every sensor needs a unique name like room or pulse")
        }

        var driver: SensorDriver?
        if let driverValue = map["driver"] {
            driver = Self.driver(driverValue, path: map.path("driver"), problems: &problems)
        } else {
            let names = SensorDriver.allCases.map(\.rawValue).joined(separator: ", ")
            problems.add(map.path("driver"), map.line, "missing; choose one of \(names)")
        }

        let wiring = driver.flatMap { Self.wiring(map, driver: $0, board: board, problems: &problems) }
        i2cLine = map["address"]?.line ?? map.line

        let pollInterval = Self.pollInterval(map, driver: driver, problems: &problems)
        let offsets = map["calibration-offset"].flatMap {
            Self.calibration($0, path: map.path("calibration-offset"), driver: driver, problems: &problems)
        } ?? [:]
        let unit = map["unit"].flatMap { Self.unit($0, path: map.path("unit"), driver: driver, problems: &problems) } ?? .celsius
        let options = map["options"].flatMap {
            Self.options($0, path: map.path("options"), driver: driver, problems: &problems)
        } ?? DriverOptions()
        // Only options that were written can contradict the entry.
        let entryProblems = map["options"] == nil ? []
            : driver?.descriptor.checkEntry(options, pollInterval: pollInterval, spell: formatDuration) ?? []
        if let optionsValue = map["options"] {
            for case let .option(keys, message) in entryProblems {
                problems.add(keys.reduce(map.path("options"), childPath), Self.line(of: keys, in: optionsValue) ?? optionsValue.line, message)
            }
        }
        if let publishValue = map["publish"] {
            publications = Self.publications(publishValue, path: map.path("publish"), driver: driver, problems: &problems)
            for publication in publications {
                for case let .unmeasured(quantity, reason) in entryProblems where quantity == publication.characteristic.quantity {
                    let name = publication.characteristic.rawValue
                    problems.add(map.path("publish"), publication.line,
                                 "'\(name)' publishes \(quantity.rawValue), but \(reason); enable it or remove '\(name)'")
                }
            }
        }
        let simulation = map["simulation"].flatMap {
            Self.simulation($0, path: map.path("simulation"), driver: driver, problems: &problems)
        } ?? SimulationSettings()

        guard problems.problems.count == before, let name, let driver, let wiring, let pollInterval else { return }
        configuration = SensorConfiguration(
            name: name, driver: driver, i2cBus: wiring.bus, i2cAddress: wiring.address, gpioLine: wiring.line,
            oneWireID: wiring.oneWireID, pollInterval: pollInterval, calibrationOffsets: offsets, options: options,
            publish: publications.map(\.characteristic), simulation: simulation, unit: unit, device: wiring.device)
    }

    private static func sensorName(_ value: YAMLValue, path: String, problems: inout ProblemList) -> String? {
        guard let name = value.text(path: path, expected: "a name like room or pulse", problems: &problems) else { return nil }
        let allowed = name.unicodeScalars.allSatisfy {
            ("0"..."9").contains($0) || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" || $0 == "-"
        }
        guard !name.isEmpty, allowed else {
            problems.add(path, value, "'\(abbreviated(name))' is not a sensor name: use letters, digits, '-' and '_' (e.g. room-1)")
            return nil
        }
        return name
    }

    private static func driver(_ value: YAMLValue, path: String, problems: inout ProblemList) -> SensorDriver? {
        let names = SensorDriver.allCases.map(\.rawValue)
        guard let text = value.text(path: path, expected: "a driver name", problems: &problems) else { return nil }
        guard let driver = SensorDriver(rawValue: text) else {
            let hint = suggestion(for: text, among: names).map { "did you mean '\($0)'?" }
                ?? "choose one of \(names.joined(separator: ", "))"
            problems.add(path, value, "unknown driver '\(abbreviated(text))'; \(hint)")
            return nil
        }
        return driver
    }

    private struct Wiring {
        var bus: Int?
        var address: UInt8?
        var line: String?
        var oneWireID: String?
        var device: String?
    }

    /// The names of the drivers whose connection matches, for "applies to …": "iio and hwmon".
    private static func drivers(_ matching: (SensorConnection) -> Bool) -> String {
        let names = SensorDriver.allCases.filter { matching($0.descriptor.connection) }.map(\.rawValue)
        guard names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
    }

    /// bus/address for I2C chips, line for gpio-pulse, id for ds18b20; each key only where it means something.
    private static func wiring(_ map: YAMLMap, driver: SensorDriver, board: BoardProfile?, problems: inout ProblemList) -> Wiring? {
        var wiring = Wiring()
        var valid = true
        let i2cNames = i2cDrivers.map(\.rawValue).joined(separator: ", ")
        func rejectUnless(_ applies: Bool, _ key: String, _ who: String) {
            guard !applies, map.contains(key) else { return }
            problems.add(map.path(key), map.line(of: key), "'\(key)' applies to \(who), not to \(driver.rawValue)")
            valid = false
        }
        rejectUnless(driver.defaultAddress != nil, "bus", "the I2C drivers (\(i2cNames))")
        rejectUnless(driver.defaultAddress != nil, "address", "the I2C drivers (\(i2cNames))")
        let connection = driver.descriptor.connection
        let onGPIO = connection == .gpio, onOneWire = connection == .oneWire
        let isKernel = if case .kernel = connection { true } else { false }
        rejectUnless(onGPIO, "line", Self.drivers { $0 == .gpio })
        rejectUnless(onOneWire, "id", "\(Self.drivers { $0 == .oneWire }) (the 1-Wire id)")
        rejectUnless(isKernel, "device", "\(Self.drivers { if case .kernel = $0 { true } else { false } }) (the kernel device's name)")

        if let defaultAddress = driver.defaultAddress {
            if let value = map["bus"] {
                wiring.bus = value.integer(path: map.path("bus"), in: 0...1023, expected: "an I2C bus number like 1 (/dev/i2c-1)", problems: &problems)
                if wiring.bus == nil { valid = false }
            } else {
                wiring.bus = board?.i2cBus
            }
            if let value = map["address"] {
                wiring.address = i2cAddress(value, path: map.path("address"), example: defaultAddress, problems: &problems)
                if wiring.address == nil { valid = false }
            } else {
                wiring.address = defaultAddress
            }
        }
        if onGPIO {
            if let value = map["line"] {
                wiring.line = gpioLine(value, path: map.path("line"), problems: &problems)
                if wiring.line == nil { valid = false }
            } else {
                problems.add(map.path("line"), map.line, "missing; \(driver.rawValue) needs the GPIO line of the pulse input, e.g. line: GPIO17")
                valid = false
            }
        }
        if isKernel {
            if let value = map["device"] {
                wiring.device = kernelDevice(value, path: map.path("device"), driver: driver, problems: &problems)
                if wiring.device == nil { valid = false }
            } else {
                let example = driver == .iio ? "dht11 or bme280 (cat /sys/bus/iio/devices/*/name)" : "w1_slave_temp (cat /sys/class/hwmon/*/name)"
                problems.add(map.path("device"), map.line, "missing; \(driver.rawValue) needs the kernel device's name, e.g. \(example)")
                valid = false
            }
        }
        if onOneWire, let value = map["id"] {
            wiring.oneWireID = oneWireID(value, path: map.path("id"), problems: &problems)
            if wiring.oneWireID == nil { valid = false }
        }
        return valid ? wiring : nil
    }

    static func i2cAddress(_ value: YAMLValue, path: String, example: UInt8, problems: inout ProblemList) -> UInt8? {
        let usage = "use 0x03…0x77, e.g. \(hex(Int(example), digits: 2))"
        guard let text = value.text(path: path, expected: "an I2C address (\(usage))", problems: &problems) else { return nil }
        switch parseInteger(text) {
        case let .value(address) where (0x03...0x77).contains(address):
            return UInt8(address)
        case .value, .tooLarge:
            problems.add(path, value, "\(abbreviated(text)) is outside the 7-bit I2C address range (\(usage))")
        case .invalid:
            problems.add(path, value, "\(abbreviated(text)) is not an I2C address (\(usage))")
        }
        return nil
    }

    /// A line name as the kernel calls it (`GPIO17`) or a line offset on the board's chips.
    private static func gpioLine(_ value: YAMLValue, path: String, problems: inout ProblemList) -> String? {
        guard let text = value.text(path: path, expected: "a GPIO line name like GPIO17", problems: &problems) else { return nil }
        if case let .value(offset) = parseInteger(text), (0...1023).contains(offset), !text.hasPrefix("0x") { return String(offset) }
        let valid = !text.isEmpty && text.count <= 32 && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }
        guard valid, parseInteger(text) == .invalid else {
            problems.add(path, value, "'\(abbreviated(text))' is not a GPIO line: use its name like GPIO17 (see gpioinfo) or an offset 0…1023")
            return nil
        }
        return text
    }

    /// `28-0316a2795dff`: family code, dash, 48-bit serial in lowercase hex, as in /sys/bus/w1/devices.
    private static func oneWireID(_ value: YAMLValue, path: String, problems: inout ProblemList) -> String? {
        guard let text = value.text(path: path, expected: "a 1-Wire id like 28-0316a2795dff", problems: &problems) else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let isHex: (Substring) -> Bool = { $0.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) } }
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 12, isHex(parts[0]), isHex(parts[1]) else {
            problems.add(path, value, "'\(abbreviated(text))' is not a 1-Wire id like 28-0316a2795dff (ls /sys/bus/w1/devices)")
            return nil
        }
        return text
    }

    /// A name as the kernel's `name` attribute has it, or the absolute path of the device directory.
    static func kernelDevice(_ value: YAMLValue, path: String, driver: SensorDriver, problems: inout ProblemList) -> String? {
        guard let text = value.text(path: path, expected: "a device name like dht11 or a /sys path", problems: &problems) else { return nil }
        let printable = text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
        let valid = !text.isEmpty && text.utf8.count <= 255 && printable
            && (text.hasPrefix("/") ? !text.split(separator: "/").contains("..") : !text.contains("/"))
        guard valid else {
            problems.add(path, value, "'\(abbreviated(text))' is not a device name (like dht11, no spaces or '/') or an absolute path of its \(driver == .iio ? "/sys/bus/iio/devices" : "/sys/class/hwmon") directory")
            return nil
        }
        return text
    }

    private static func pollInterval(_ map: YAMLMap, driver: SensorDriver?, problems: inout ProblemList) -> Duration? {
        guard let value = map["poll-interval"] else { return driver.map(defaultPollInterval) }
        let path = map.path("poll-interval")
        guard let interval = value.duration(path: path, problems: &problems) else { return nil }
        guard let driver else { return interval }
        let range = pollRange(driver)
        guard range.contains(interval) else {
            let span = "\(formatDuration(range.lowerBound))…\(formatDuration(range.upperBound))"
            let fifo = driver == .max30100 ? "16 samples, 160 ms at 100 Hz" : "only ~320 ms of samples at 100 Hz"
            let reason = isHeartRate(driver) ? " for \(driver.rawValue): its FIFO holds \(fifo)" : ""
            problems.add(path, value, "\(formatDuration(interval)) is out of range \(span)\(reason)")
            return nil
        }
        return interval
    }

    /// A number for the driver's first quantity, or a map quantity → number.
    static func calibration(_ value: YAMLValue, path: String, driver: SensorDriver?,
                            problems: inout ProblemList) -> [Quantity: Double]? {
        let range = -10_000.0...10_000.0
        if value.scalarText != nil {
            guard let offset = value.number(path: path, in: range, problems: &problems), let driver else { return nil }
            let quantity = driver.quantities[0]
            guard calibratable.contains(quantity) else {
                problems.add(path, value, notCalibratable(quantity))
                return nil
            }
            return [quantity: offset]
        }
        guard case .mapping = value.node else {
            problems.add(path, value, "expected a number (for the driver's first quantity) or a map like {temperature: -0.3, humidity: 2}, found \(value.kindDescription)")
            return nil
        }
        guard let map = value.map(path: path, known: Quantity.allCases.map(\.rawValue), problems: &problems) else { return nil }
        var offsets: [Quantity: Double] = [:]
        for entry in map.entries {
            guard let quantity = Quantity(rawValue: entry.key) else { continue }
            if let driver, !driver.quantities.contains(quantity) {
                problems.add(map.path(entry.key), entry.keyLine, notMeasured(quantity, by: driver))
                continue
            }
            guard calibratable.contains(quantity) else {
                problems.add(map.path(entry.key), entry.keyLine, notCalibratable(quantity))
                continue
            }
            if let offset = entry.value.number(path: map.path(entry.key), in: range, unit: " \(quantity.unit)", problems: &problems) {
                offsets[quantity] = offset
            }
        }
        return offsets
    }

    /// The quantities an offset applies to. A heart rate or an SpO2 comes from beat timing and a
    /// calibration curve, so a constant added to it would be a made-up correction, not a calibration.
    static let calibratable: Set<Quantity> = [.temperature, .humidity, .pressure, .batteryLevel]

    private static func notCalibratable(_ quantity: Quantity) -> String {
        "\(quantity.rawValue) takes no calibration offset (it is computed from beat timing or a calibration curve); "
            + "offsets apply to temperature, humidity, pressure and battery-level"
    }

    /// `celsius` or `fahrenheit`, for drivers that measure temperature.
    static func unit(_ value: YAMLValue, path: String, driver: SensorDriver?, problems: inout ProblemList) -> TemperatureUnit? {
        let names = TemperatureUnit.allCases.map(\.rawValue)
        guard let text = value.choice(path: path, among: names, problems: &problems) else { return nil }
        if let driver, !driver.quantities.contains(.temperature) {
            let takers = SensorDriver.allCases.filter { $0.quantities.contains(.temperature) }.map(\.rawValue).joined(separator: ", ")
            problems.add(path, value, "\(driver.rawValue) does not measure temperature; 'unit' applies to \(takers)")
            return nil
        }
        return TemperatureUnit(rawValue: text)
    }

    static func notMeasured(_ quantity: Quantity, by driver: SensorDriver) -> String {
        "\(driver.rawValue) does not measure \(quantity.rawValue); it measures \(driver.quantities.map(\.rawValue).joined(separator: ", "))"
    }

    /// Every `options:` key some driver takes, in catalogue order: the order they are checked in.
    static let parsedOptionKeys: [String] = SensorDriver.allCases.reduce(into: []) { keys, driver in
        for key in driver.descriptor.optionKeys where !keys.contains(key) { keys.append(key) }
    }

    static let optionDrivers: [(key: String, drivers: [SensorDriver])] = parsedOptionKeys.map { key in
        (key, SensorDriver.allCases.filter { $0.descriptor.optionKeys.contains(key) })
    }

    /// The driver's descriptor reads and checks its own options; a key it does not take is
    /// refused here, naming the drivers that take it. With no valid driver only the keys are checked.
    static func options(_ value: YAMLValue, path: String, driver: SensorDriver?, problems: inout ProblemList) -> DriverOptions? {
        guard let map = value.map(path: path, known: optionDrivers.map(\.key), problems: &problems) else { return nil }
        var options = DriverOptions()
        guard let driver else { return options }
        let reader = YAMLOptionReader(map: map)
        for (key, drivers) in optionDrivers where map[key] != nil {
            guard drivers.contains(driver) else {
                let takers = drivers.map(\.rawValue).joined(separator: ", ")
                reader.sink.problems.add(map.path(key), map.line(of: key), "\(driver.rawValue) takes no '\(key)' option; it applies to \(takers)")
                continue
            }
            driver.descriptor.readOption(key, from: reader, into: &options)
        }
        driver.descriptor.checkOptions(options, reader: reader)
        reader.sink.problems.problems.forEach { problems.append($0) }
        return options
    }

    /// The line of the deepest of `keys` written in the options (`heater.every`, else `heater`), for
    /// problems found after they were read; reading them again reports nothing (their problems are listed).
    private static func line(of keys: [String], in options: YAMLValue) -> Int? {
        var ignored = ProblemList()
        var value = options
        var line: Int?
        for key in keys {
            guard case .mapping = value.node, let map = value.map(path: "", known: [key], problems: &ignored), let next = map[key] else { break }
            line = map.line(of: key)
            value = next
        }
        return line
    }

    /// Names, or `{characteristic: NAME, mode: notify|indicate}` where the mode must be the one the SIG service uses.
    private static func publications(_ value: YAMLValue, path: String, driver: SensorDriver?,
                                     problems: inout ProblemList) -> [(characteristic: PublishedCharacteristic, line: Int?)] {
        guard let items = value.list(path: path, of: "characteristic names like temperature-measurement", problems: &problems) else { return [] }
        var result: [(characteristic: PublishedCharacteristic, line: Int?)] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            var nameValue = item
            var namePath = itemPath
            var mode: (text: String, value: YAMLValue)?
            if case .mapping = item.node {
                guard let entry = item.map(path: itemPath, known: ["characteristic", "mode"], problems: &problems) else { continue }
                guard let characteristic = entry["characteristic"] else {
                    problems.add(entry.path("characteristic"), item.line, "missing; name the characteristic, e.g. {characteristic: temperature-measurement, mode: indicate}")
                    continue
                }
                nameValue = characteristic
                namePath = entry.path("characteristic")
                if let modeValue = entry["mode"],
                   let text = modeValue.choice(path: entry.path("mode"), among: ["notify", "indicate"], problems: &problems) {
                    mode = (text, modeValue)
                }
            }
            guard let characteristic = publishedCharacteristic(nameValue, path: namePath, problems: &problems) else { continue }
            if let mode, mode.text != characteristic.delivery.rawValue {
                let allowed = characteristic.delivery.rawValue
                problems.add(itemPath + ".mode", mode.value, "\(characteristic.rawValue) is \(allowed == "notify" ? "notified" : "indicated") by the \(serviceName(characteristic)) service; mode \(mode.text) is not allowed, use \(allowed)")
                continue
            }
            if let driver, !driver.quantities.contains(characteristic.quantity) {
                let fitting = PublishedCharacteristic.allCases.filter { driver.quantities.contains($0.quantity) }.map(\.rawValue)
                problems.add(namePath, nameValue, "\(notMeasured(characteristic.quantity, by: driver)); it can publish \(fitting.joined(separator: ", "))")
                continue
            }
            if result.contains(where: { $0.characteristic == characteristic }) {
                problems.add(namePath, nameValue, "\(characteristic.rawValue) is listed twice")
                continue
            }
            result.append((characteristic, nameValue.line))
        }
        return result
    }

    private static func publishedCharacteristic(_ value: YAMLValue, path: String, problems: inout ProblemList) -> PublishedCharacteristic? {
        let names = PublishedCharacteristic.allCases.map(\.rawValue)
        guard let text = value.text(path: path, expected: "a characteristic name like temperature-measurement", problems: &problems) else { return nil }
        guard let characteristic = PublishedCharacteristic(rawValue: text) else {
            let hint = suggestion(for: text, among: names).map { "did you mean '\($0)'?" } ?? "choose from \(names.joined(separator: ", "))"
            problems.add(path, value, "unknown characteristic '\(abbreviated(text))'; \(hint)")
            return nil
        }
        return characteristic
    }

    static func serviceName(_ characteristic: PublishedCharacteristic) -> String {
        switch characteristic {
        case .heartRateMeasurement: return "Heart Rate"
        case .temperatureMeasurement, .intermediateTemperature: return "Health Thermometer"
        case .environmentalTemperature, .humidity, .pressure: return "Environmental Sensing"
        case .batteryLevel: return "Battery"
        case .plxContinuousMeasurement: return "Pulse Oximeter"
        }
    }

    /// What the simulated chip reports; each value must be one the driver measures.
    private static func simulation(_ value: YAMLValue, path: String, driver: SensorDriver?,
                                   problems: inout ProblemList) -> SimulationSettings? {
        // Ranges of the real chips (TMP102 -55…150 °C, BME280 300…1100 hPa) so the simulated registers can hold them.
        let fields: [(key: String, quantity: Quantity, range: ClosedRange<Double>, unit: String)] = [
            ("celsius", .temperature, -55...150, " °C"),
            ("humidity", .humidity, 0...100, " %"),
            ("pressure", .pressure, 30_000...110_000, " Pa"),
            ("bpm", .heartRate, 20...300, " bpm"),
            ("battery-percent", .batteryLevel, 0...100, " %"),
        ]
        guard let map = value.map(path: path, known: fields.map(\.key) + ["fail-after", "registers"], problems: &problems) else { return nil }
        var values: [String: Double] = [:]
        for field in fields {
            guard let item = map[field.key] else { continue }
            if let driver, !driver.quantities.contains(field.quantity) {
                problems.add(map.path(field.key), map.line(of: field.key), "'\(field.key)' does not apply to \(driver.rawValue): \(notMeasured(field.quantity, by: driver))")
                continue
            }
            values[field.key] = item.number(path: map.path(field.key), in: field.range, unit: field.unit, problems: &problems)
        }
        var failAfter: Duration?
        if let item = map["fail-after"] {
            failAfter = item.duration(path: map.path("fail-after"), problems: &problems)
            if let duration = failAfter, duration > .seconds(86_400) {
                problems.add(map.path("fail-after"), item, "\(formatDuration(duration)) is out of range 0ms…24h")
            }
        }
        var registers: [SimulationSettings.RegisterBlock] = []
        if let item = map["registers"] {
            registers = simulatedRegisters(item, path: map.path("registers"), driver: driver, problems: &problems)
            let values = fields.map(\.key).filter { map[$0] != nil }
            if !values.isEmpty, !registers.isEmpty {
                problems.add(map.path("registers"), item, "give the chip's registers or its values (\(values.joined(separator: ", "))), not both")
            }
        }
        return SimulationSettings(celsius: values["celsius"], relativeHumidity: values["humidity"], pascals: values["pressure"],
                                  beatsPerMinute: values["bpm"], batteryPercent: values["battery-percent"], failAfter: failAfter,
                                  registers: registers)
    }

    /// The register ranges each chip's simulation can be loaded with, as its descriptor lists them.
    static let simulatedRegisterRanges: [SensorDriver: [SimulatedRegisterRange]] = Dictionary(
        SensorDriver.allCases.compactMap { driver in
            guard let ranges = driver.i2c?.simulatedRegisters, !ranges.isEmpty else { return nil }
            return (driver, ranges)
        }, uniquingKeysWith: { first, _ in first })

    /// `{0x88: "70 6B 43 67", 0xF7: "65 5A C0 7E ED 00 75 30"}`: hex bytes from a start register.
    private static func simulatedRegisters(_ value: YAMLValue, path: String, driver: SensorDriver?,
                                           problems: inout ProblemList) -> [SimulationSettings.RegisterBlock] {
        guard case let .mapping(mapping) = value.node else {
            problems.add(path, value, "expected a map of start register to hex bytes, e.g. {0x88: \"70 6B 43 67\"}, found \(value.kindDescription)")
            return []
        }
        guard let driver else { return [] }
        guard let ranges = simulatedRegisterRanges[driver] else {
            let takers = simulatedRegisterRanges.keys.map(\.rawValue).sorted().joined(separator: ", ")
            problems.add(path, value, "\(driver.rawValue) is simulated from values only; registers apply to \(takers)")
            return []
        }
        var blocks: [SimulationSettings.RegisterBlock] = []
        var givenStarts: Set<Int> = []
        for (keyNode, bytesNode) in mapping {
            let key = YAMLValue(node: keyNode), item = YAMLValue(node: bytesNode)
            guard let keyText = key.scalarText, case let .value(start) = parseInteger(keyText), (0...0xFF).contains(start) else {
                problems.add(path, key, "'\(abbreviated(key.scalarText ?? key.kindDescription))' is not a register number 0x00…0xFF")
                continue
            }
            givenStarts.insert(start)
            let itemPath = "\(path).\(keyText)"
            guard let text = item.text(path: itemPath, expected: "hex bytes like \"70 6B\"", problems: &problems) else { continue }
            // Groups of whole bytes: "70 6B", "706B"; a digit split from its byte ("7 06B") is refused.
            let groups = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard !groups.isEmpty, groups.allSatisfy({ $0.count % 2 == 0 && $0.allSatisfy { $0.isASCII && $0.isHexDigit } }),
                  let bytes = try? [UInt8](hex: groups.joined()) else {
                problems.add(itemPath, item, "'\(abbreviated(text))' is not hex bytes like \"70 6B 43\"")
                continue
            }
            let span = start...(start + bytes.count - 1)
            guard let fit = ranges.first(where: { $0.range.contains(span.lowerBound) && $0.range.contains(span.upperBound) }),
                  !fit.exact || span == fit.range else {
                let allowed = ranges.map { r in
                    "\(r.name) \(hex(r.range.lowerBound, digits: 2))…\(hex(r.range.upperBound, digits: 2))\(r.exact ? " (all \(r.range.count) bytes)" : "")"
                }.joined(separator: ", ")
                problems.add(itemPath, item, "\(bytes.count) byte(s) from \(hex(start, digits: 2)) do not fit; \(driver.rawValue) takes \(allowed)")
                continue
            }
            if let other = blocks.first(where: { Int($0.start)...(Int($0.start) + $0.bytes.count - 1) ~= start
                                                    || span.contains(Int($0.start)) }) {
                problems.add(itemPath, item, "overlaps the bytes given from \(hex(Int(other.start), digits: 2)); give each register once")
                continue
            }
            blocks.append(.init(start: UInt8(start), bytes: bytes))
        }
        // Without its result registers the chip would have no measurement to return.
        // (One given but refused above has its own message.)
        for range in ranges where range.exact && !blocks.isEmpty && !givenStarts.contains(range.range.lowerBound) {
            problems.add(path, value, "\(range.name) \(hex(range.range.lowerBound, digits: 2))…\(hex(range.range.upperBound, digits: 2)) "
                         + "missing: without them the simulated \(driver.rawValue) has no measurement to return")
        }
        return blocks
    }

}

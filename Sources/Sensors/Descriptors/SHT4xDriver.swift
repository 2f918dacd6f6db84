/// Sensirion SHT40/41/45 temperature and humidity, with its heater.
public struct SHT4xDriver: I2CDriverDescriptor {
    public let name = "sht4x"
    public let connection = SensorConnection.i2c(defaultAddress: SHT4x.defaultAddress)
    public let quantities: [Quantity] = [.temperature, .humidity]
    public let optionKeys = ["heater", "precision"]
    public init() {}

    /// `precision` (nil: high) and the daemon's heater pulse: power and length, how often, and
    /// how long readings are withheld after it (nil: `SHT4xHeaterCycle.Schedule.defaultCoolDown`).
    public struct Settings: DriverSettings, Defaultable {
        public var precision: SHT4x.Precision?
        public var heaterPulse: SHT4x.HeaterPulse?
        public var heaterEvery: Duration?
        public var heaterCoolDown: Duration?
        public init(precision: SHT4x.Precision? = nil, heaterPulse: SHT4x.HeaterPulse? = nil, heaterEvery: Duration? = nil,
                    heaterCoolDown: Duration? = nil) {
            self.precision = precision
            self.heaterPulse = heaterPulse
            self.heaterEvery = heaterEvery
            self.heaterCoolDown = heaterCoolDown
        }
        public init() { self.init(precision: nil) }

        /// The heater schedule, when a pulse and its period are set.
        public var heaterSchedule: SHT4xHeaterCycle.Schedule? {
            guard let heaterPulse, let heaterEvery else { return nil }
            return SHT4xHeaterCycle.Schedule(pulse: heaterPulse, every: heaterEvery,
                                             coolDown: heaterCoolDown ?? SHT4xHeaterCycle.Schedule.defaultCoolDown)
        }
    }

    public static let heaterExample = "power (20mw, 110mw or 200mw), pulse (100ms or 1s) and, for the daemon, every (how often, e.g. 5m)"

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        options.update(Settings.self) { settings in
            switch key {
            case "heater": readHeater(reader, into: &settings)
            case "precision": settings.precision = reader.choice(key, of: SHT4x.Precision.self)
            default: break
            }
        }
    }

    /// The daemon pulses on a schedule, so it needs `every`, and a cool-down that leaves ambient
    /// readings between pulses.
    public func checkEntry(_ options: DriverOptions, pollInterval: Duration?, spell: (Duration) -> String) -> [SensorEntryProblem] {
        let settings = options.settings(Settings.self)
        guard let pollInterval, let pulse = settings.heaterPulse else { return [] }
        let coolDown = settings.heaterCoolDown ?? SHT4xHeaterCycle.Schedule.defaultCoolDown
        // The daemon never pulses twice without an ambient reading in between; a shorter period
        // would only be stretched, so it is refused rather than run slower than written.
        let shortest = max(pulse.minimumPeriod, pulse.longest + coolDown + pollInterval)
        guard let every = settings.heaterEvery else {
            return [.option(path: ["heater", "every"], message: "missing; say how often the daemon runs the heater, e.g. every: 5m "
                            + "(at least \(spell(shortest)) for a \(spell(pulse.duration.nominal)) pulse with this cool-down and poll-interval)")]
        }
        guard every < shortest else { return [] }
        return [.option(path: ["heater", "every"], message: "heating every \(spell(every)) leaves no ambient reading between pulses "
                        + "(pulse up to \(spell(pulse.longest)) + cool-down \(spell(coolDown)) + poll-interval "
                        + "\(spell(pollInterval))); use every: \(spell(shortest)) or longer, or a shorter cool-down")]
    }

    /// The SHT4x heater runs in pulses (it has no steady on): a power, a pulse length, how often,
    /// and how long to withhold readings after each pulse.
    private func readHeater(_ reader: any DriverOptionReader, into options: inout Settings) {
        guard !reader.isScalar("heater") else {
            reader.problem(at: "heater", "the sht4x heater runs in pulses, not on or off: give its \(Self.heaterExample)")
            return
        }
        guard let map = reader.map("heater", known: ["power", "pulse", "every", "cool-down"]) else { return }
        func required(_ key: String) -> Bool {
            guard map.has(key) else {
                map.problem(missing: key, "missing; the sht4x heater needs \(Self.heaterExample)")
                return false
            }
            return true
        }
        let power = required("power") ? map.oneOf("power", SHT4x.HeaterPower.allCases.map(\.rawValue)).flatMap(SHT4x.HeaterPower.init(rawValue:)) : nil
        let duration = required("pulse") ? map.oneOf("pulse", SHT4x.HeaterDuration.allCases.map(\.rawValue)).flatMap(SHT4x.HeaterDuration.init(rawValue:)) : nil
        let every = map.duration("every")
        let coolDown = map.duration("cool-down")
        // A value already reported as invalid is not also reported as missing later.
        guard let power, let duration, (every != nil) == map.has("every"), (coolDown != nil) == map.has("cool-down") else { return }
        let pulse = SHT4x.HeaterPulse(power: power, duration: duration)
        if let every, every < pulse.minimumPeriod || every > .seconds(86_400) {
            let minimum = map.spelling(of: pulse.minimumPeriod)
            map.problem(at: "every", every > .seconds(86_400)
                ? "\(map.spelling(of: every)) is out of range \(minimum)…24h"
                : "a \(map.spelling(of: duration.nominal)) pulse (up to \(map.spelling(of: pulse.longest))) every \(map.spelling(of: every)) "
                    + "can exceed the heater's 10 % duty limit (datasheet 4.9); use every: \(minimum) or longer")
            return
        }
        if let coolDown, coolDown > .seconds(3600) {
            map.problem(at: "cool-down", "\(map.spelling(of: coolDown)) is out of range 0ms…1h")
            return
        }
        options.heaterPulse = pulse
        options.heaterEvery = every
        options.heaterCoolDown = coolDown
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let settings = context.options.settings(Settings.self)
        let chip = SHT4x(bus: context.bus, address: context.address, clock: context.clock, precision: settings.precision ?? .high)
        let read: @Sendable () throws(SensorError) -> TemperatureHumidityReading
        if let schedule = settings.heaterSchedule {
            let cycle = SHT4xHeaterCycle(chip: chip, schedule: schedule, clock: context.clock, memory: context.heaterMemory)
            read = cycle.read
        } else {
            read = chip.read
        }
        return DriverSource(offsets: context.offsets, read: { () throws(SensorError) in
            let reading = try read()
            return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedSHT4x(celsius: simulation.celsius ?? SimulationDefaults.celsius,
                       relativeHumidity: simulation.relativeHumidity ?? SimulationDefaults.relativeHumidity, clock: clock)
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedSHT4x(celsius: 22.5, relativeHumidity: 48, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip, options = context.options.settings(Settings.self)
        let sensor = SHT4x(bus: context.bus, address: context.address, clock: context.clock, precision: options.precision ?? .high)
        let reading = if let pulse = options.heaterPulse { try sensor.heat(pulse) } else { try sensor.read() }
        return "sht4x: " + request.temperature(reading.celsius) + request.humidity(reading.relativeHumidity)
            + (options.heaterPulse.map { " (measured at the end of a heater pulse, \($0): the hot die, not the ambient values)" } ?? "")
    }
}

extension SensorDriver {
    public static let sht4x = SensorDriver(SHT4xDriver())
}

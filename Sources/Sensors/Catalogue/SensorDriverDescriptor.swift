/// How a driver reaches its chip.
public enum SensorConnection: Sendable, Equatable {
    case i2c(defaultAddress: UInt8)
    /// The kernel's w1-therm driver (/sys/bus/w1/devices).
    case oneWire
    /// A pulse line read through libgpiod.
    case gpio
    /// A thermal zone (/sys/class/thermal).
    case thermalZone
    /// A device the kernel already drives (/sys/bus/iio/devices or /sys/class/hwmon).
    case kernel(KernelSensor.Kind)
}

/// Everything the daemon, `sensor read`, the configuration loader and the simulated board know of
/// one driver, as Zephyr's `sensor_driver_api` is all its sensor subsystem knows of a driver. The
/// catalogue (`SensorDriverCatalogue`) lists them; the loader, the daemon's factory, the simulated
/// board, `sensor read` and `doctor` go through them rather than through driver names.
public protocol SensorDriverDescriptor: Sendable {
    /// The name in configuration files and on the command line.
    var name: String { get }
    var connection: SensorConnection { get }
    /// What a reading carries, first the quantity a bare calibration offset applies to.
    var quantities: [Quantity] { get }
    /// The sensor's `options:` keys this driver takes; the loader refuses the others for it.
    var optionKeys: [String] { get }
    /// The bridge's poll period when the configuration names none, and the range it may name.
    var defaultPollInterval: Duration { get }
    var pollRange: ClosedRange<Duration> { get }
    /// Reads and checks one of `optionKeys` into `options` (the loader calls it once per key given,
    /// in its own order, so problems come out in a stable order).
    func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions)
    /// Checks the options read together (settings that contradict each other).
    func checkOptions(_ options: DriverOptions, reader: any DriverOptionReader)
    /// Checks the options against the rest of the sensor's entry: how often it is polled (nil when
    /// that is invalid itself) and what it publishes. `spell` writes a duration as the file would.
    func checkEntry(_ options: DriverOptions, pollInterval: Duration?, spell: (Duration) -> String) -> [SensorEntryProblem]
}

/// A conflict between a driver's options and the rest of its sensor's entry.
public enum SensorEntryProblem: Sendable, Equatable {
    /// About the option at `path` below `options:` (["heater", "every"]), given or missing.
    case option(path: [String], message: String)
    /// The options stop the chip from measuring `quantity`, so publishing it would publish nothing.
    case unmeasured(Quantity, reason: String)
}

extension SensorDriverDescriptor {
    public var optionKeys: [String] { [] }

    public func checkEntry(_ options: DriverOptions, pollInterval: Duration?, spell: (Duration) -> String) -> [SensorEntryProblem] { [] }

    /// Heart-rate chips sample into a FIFO that holds ~320 ms at 100 Hz, so they are polled faster.
    public var defaultPollInterval: Duration { measuresHeartRate ? .milliseconds(250) : .seconds(1) }
    public var pollRange: ClosedRange<Duration> {
        measuresHeartRate ? .milliseconds(50) ... .seconds(1) : .milliseconds(100) ... .seconds(3600)
    }

    var measuresHeartRate: Bool { quantities.contains(.heartRate) }
}

/// A driver for a chip on an I2C bus: it opens its chip, simulates it and reads it once.
public protocol I2CDriverDescriptor: SensorDriverDescriptor {
    /// The daemon's source: the chip configured as `context.options` ask, read on every poll.
    func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource
    /// The register-level chip the `simulated` board attaches, reporting the configured values.
    func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice
    /// The chip `sensor read --simulated` reads: plausible values of its own.
    func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice
    /// `blesensor sensor read`: one reading, as the line it prints.
    func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String
    /// Raw registers a simulation may load instead of values (what a datasheet example lists).
    var simulatedRegisters: [SimulatedRegisterRange] { get }
}

extension I2CDriverDescriptor {
    public var simulatedRegisters: [SimulatedRegisterRange] { [] }
}

/// What an I2C driver is given to open its chip.
public struct I2CDriverContext: Sendable {
    public var bus: any I2CBus
    public var address: UInt8
    public var clock: any SensorClock
    public var options: DriverOptions
    /// Added to each quantity read, in its unit.
    public var offsets: [Quantity: Double]
    /// Must outlive the source (the bridge keeps one per sensor), or a failed sht4x heater pulse
    /// loses its cool-down when the source is reopened.
    public var heaterMemory: SHT4xHeaterCycle.Memory
    /// Runs when the source is closed (the simulated board's clean-up).
    public var close: @Sendable () -> Void

    public init(bus: any I2CBus, address: UInt8, clock: any SensorClock, options: DriverOptions = DriverOptions(),
                offsets: [Quantity: Double] = [:], heaterMemory: SHT4xHeaterCycle.Memory = .init(),
                close: @escaping @Sendable () -> Void = {}) {
        self.bus = bus
        self.address = address
        self.clock = clock
        self.options = options
        self.offsets = offsets
        self.heaterMemory = heaterMemory
        self.close = close
    }
}

/// One `sensor read`: the chip, how to print it, and how long heart-rate chips collect beats.
public struct SensorReadRequest: Sendable {
    public var chip: I2CDriverContext
    public var unit: TemperatureUnit
    public var seconds: Double

    public init(chip: I2CDriverContext, unit: TemperatureUnit, seconds: Double) {
        self.chip = chip
        self.unit = unit
        self.seconds = seconds
    }

    /// The calibration offset of `quantity`, 0 when none is given.
    public func offset(_ quantity: Quantity) -> Double { chip.offsets[quantity] ?? 0 }

    /// A temperature with its offset, in the unit asked for.
    public func temperature(_ celsius: Double) -> String { ReadingText.temperature(celsius + offset(.temperature), unit: unit) }

    /// ", 45.0 %RH" with its offset, clamped to 0…100 as the daemon does.
    public func humidity(_ percent: Double) -> String { ReadingText.humidity(percent + offset(.humidity)) }
}

/// Registers of a simulated chip that `simulation: registers:` may set.
public struct SimulatedRegisterRange: Sendable {
    public var range: ClosedRange<Int>
    public var name: String
    /// The whole range must be given at once (a result register), not part of it (calibration).
    public var exact: Bool

    public init(_ range: ClosedRange<Int>, _ name: String, exact: Bool) {
        self.range = range
        self.name = name
        self.exact = exact
    }
}

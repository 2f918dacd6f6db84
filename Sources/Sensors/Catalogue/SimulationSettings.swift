/// What a simulated chip reports on the `simulated` board (ignored on real boards).
public struct SimulationSettings: Sendable, Equatable {
    /// Temperature in °C the simulated chip reports.
    public var celsius: Double?
    /// Relative humidity in %.
    public var relativeHumidity: Double?
    /// Pressure in Pa.
    public var pascals: Double?
    /// Heart rate of the synthetic pulse wave.
    public var beatsPerMinute: Double?
    /// Battery state of charge in %.
    public var batteryPercent: Double?
    /// The chip stops answering this long after start (fault injection for demos and tests).
    public var failAfter: Duration?
    /// Raw register bytes by start register (tmp102, mcp9808, bme280), instead of values: what a
    /// datasheet example lists, so a test's expectation need not come from our own conversions.
    public var registers: [RegisterBlock]

    public struct RegisterBlock: Sendable, Equatable {
        public var start: UInt8
        public var bytes: [UInt8]

        public init(start: UInt8, bytes: [UInt8]) {
            self.start = start
            self.bytes = bytes
        }
    }

    public init(celsius: Double? = nil, relativeHumidity: Double? = nil, pascals: Double? = nil,
                beatsPerMinute: Double? = nil, batteryPercent: Double? = nil, failAfter: Duration? = nil,
                registers: [RegisterBlock] = []) {
        self.registers = registers
        self.celsius = celsius
        self.relativeHumidity = relativeHumidity
        self.pascals = pascals
        self.beatsPerMinute = beatsPerMinute
        self.batteryPercent = batteryPercent
        self.failAfter = failAfter
    }
}

/// Whether the sensor can tell it is touching what it measures.
public enum SensorContact: Sendable, Equatable {
    /// The hardware cannot tell.
    case unsupported
    case detected
    case notDetected
}

public struct TemperatureReading: Sendable, Equatable {
    public var celsius: Double
    public init(celsius: Double) { self.celsius = celsius }
}

public struct TemperatureHumidityReading: Sendable, Equatable {
    public var celsius: Double
    public var relativeHumidity: Double
    public init(celsius: Double, relativeHumidity: Double) {
        self.celsius = celsius
        self.relativeHumidity = relativeHumidity
    }
}

public struct EnvironmentReading: Sendable, Equatable {
    public var celsius: Double
    /// nil when the channel is disabled (oversampling skipped): it measured nothing.
    public var pascals: Double?
    public var relativeHumidity: Double?
    public init(celsius: Double, pascals: Double?, relativeHumidity: Double?) {
        self.celsius = celsius
        self.pascals = pascals
        self.relativeHumidity = relativeHumidity
    }
}

public struct HeartRateReading: Sendable, Equatable {
    /// Beats per minute from recent RR-intervals; nil until two beats are seen.
    public var beatsPerMinute: Double?
    /// RR-intervals since the previous reading, in milliseconds.
    public var rrIntervalsMilliseconds: [Double]
    public var contact: SensorContact

    public init(beatsPerMinute: Double?, rrIntervalsMilliseconds: [Double], contact: SensorContact) {
        self.beatsPerMinute = beatsPerMinute
        self.rrIntervalsMilliseconds = rrIntervalsMilliseconds
        self.contact = contact
    }

    /// RR-intervals in 1/1024 s, the unit of the Heart Rate Measurement characteristic.
    public var rrIntervals1024: [UInt16] {
        rrIntervalsMilliseconds.map { UInt16(saturating: ($0 * 1024 / 1000).rounded()) }
    }
}

public struct BatteryReading: Sendable, Equatable {
    public var cellVolts: Double
    public var stateOfChargePercent: Double
    public var chargeRatePercentPerHour: Double
    /// The gauge reset (power-up, brown-out) since the previous read (MAX17048 STATUS.RI): its
    /// state-of-charge estimate restarted from the cell voltage, so it may jump.
    public var resetDetected: Bool
    public init(cellVolts: Double, stateOfChargePercent: Double, chargeRatePercentPerHour: Double, resetDetected: Bool = false) {
        self.cellVolts = cellVolts
        self.stateOfChargePercent = stateOfChargePercent
        self.chargeRatePercentPerHour = chargeRatePercentPerHour
        self.resetDetected = resetDetected
    }
}

/// One reading of a sensor, in SI-ish units, with the calibration offsets applied.
public struct Measurement: Sendable, Equatable {
    /// °C.
    public var temperature: Double?
    /// % relative humidity.
    public var humidity: Double?
    /// Pa.
    public var pressure: Double?
    /// % state of charge.
    public var batteryPercent: Double?
    public var heartRate: HeartRateReading?
    /// SpO2 or why there is none (MAX3010x in SpO2 mode only).
    public var oxygenSaturation: Result<SpO2Estimator.Estimate, SpO2Estimator.Gate>?
    /// Something the chip reported along with the values that the log should show once (a fuel
    /// gauge reset), not a fault.
    public var notice: String?

    public init(temperature: Double? = nil, humidity: Double? = nil, pressure: Double? = nil,
                batteryPercent: Double? = nil, heartRate: HeartRateReading? = nil,
                oxygenSaturation: Result<SpO2Estimator.Estimate, SpO2Estimator.Gate>? = nil, notice: String? = nil) {
        self.oxygenSaturation = oxygenSaturation
        self.notice = notice
        self.temperature = temperature
        self.humidity = humidity
        self.pressure = pressure
        self.batteryPercent = batteryPercent
        self.heartRate = heartRate
    }
}

/// A sensor as the bridge polls it. `read` blocks (bus transfers, conversion delays) and is only
/// called on the sensor's own thread, one call at a time.
public protocol SensorSource: AnyObject, Sendable {
    func read() throws(SensorError) -> Measurement
    /// Releases the hardware (stops GPIO monitoring, closes the bus). Called once, on the sensor's thread.
    func close()
}

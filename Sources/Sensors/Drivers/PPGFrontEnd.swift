/// A pulse-oximeter chip whose FIFO feeds `PPGHeartRateMonitor`: the MAX30101/MAX30102 and the
/// MAX30100 deliver the same sample blocks, so the heart-rate (and SpO2) pipeline serves both.
public protocol PPGFrontEnd: Sendable {
    /// The part name used in messages: MAX30102, MAX30100.
    var partName: String { get }
    /// Samples per second the chip was configured for.
    var sampleRate: Int { get }
    /// Both LEDs are sampled (SpO2 mode), so the red/IR pairs can give a saturation.
    var samplesRedAndInfrared: Bool { get }
    /// The largest sample value the ADC gives, for the estimator's saturation and weak-signal gates.
    var adcFullScale: Double { get }
    var clock: any SensorClock { get }
    /// Drains every unread FIFO sample.
    func readFIFO() throws(SensorError) -> MAX3010x.FIFORead
}

extension MAX3010x: PPGFrontEnd {
    public var partName: String { variant.rawValue }
    public var sampleRate: Int { configuration.sampleRate }
    public var samplesRedAndInfrared: Bool { configuration.mode == .spO2 }
    /// Samples are 18-bit (datasheet: FIFO data, bits 17:0).
    public var adcFullScale: Double { 262_143 }
}

/// The settings both pulse-oximeter chips take: a sample rate and the two LED currents.
public protocol PPGLEDConfiguration: Sendable {
    var sampleRate: Int { get set }
    var redMilliamps: Double { get set }
    var irMilliamps: Double { get set }
}

extension MAX3010x.Configuration: PPGLEDConfiguration {}
extension MAX30100.Configuration: PPGLEDConfiguration {}

import Synchronization

/// The pulse oximeters' `sample-rate` (Hz) and `led-current-ma` (both LEDs alike); nil keeps the
/// driver's default.
public struct PPGSettings: DriverSettings, Defaultable {
    public var sampleRate: Int?
    public var ledCurrentMilliamps: Double?

    public init(sampleRate: Int? = nil, ledCurrentMilliamps: Double? = nil) {
        self.sampleRate = sampleRate
        self.ledCurrentMilliamps = ledCurrentMilliamps
    }

    public init() { self.init(sampleRate: nil) }

    /// The chip's defaults with what the options ask for.
    public func configuration<Configuration: PPGLEDConfiguration>(_ defaults: Configuration) -> Configuration {
        var configuration = defaults
        if let sampleRate { configuration.sampleRate = sampleRate }
        if let ledCurrentMilliamps {
            configuration.redMilliamps = ledCurrentMilliamps
            configuration.irMilliamps = ledCurrentMilliamps
        }
        return configuration
    }

    /// Reads one of the two options, with the chip's own allowed rates and current limit.
    static func read(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions,
                     sampleRates: [Int], maximumMilliamps: Double) {
        options.update(PPGSettings.self) { settings in
            switch key {
            case "sample-rate": settings.sampleRate = reader.oneOf(key, sampleRates, unit: " Hz")
            case "led-current-ma": settings.ledCurrentMilliamps = reader.number(key, in: 0...maximumMilliamps, unit: " mA")
            default: break
            }
        }
    }
}

/// What the pulse-oximeter drivers share: the daemon's source and `sensor read`'s collection.
enum PPGDriverSupport {
    /// A pulse-oximeter chip configured on the first read (and after a reset), its FIFO drained into
    /// the heart-rate monitor on every read.
    static func source(chip: any PPGFrontEnd, configure: @escaping @Sendable () throws(SensorError) -> Void,
                       fingerThreshold: Double, context: I2CDriverContext) -> any SensorSource {
        let monitor = PPGHeartRateMonitor(sensor: chip, fingerThreshold: fingerThreshold)
        let configuredAt = Mutex<UInt64?>(nil)
        let clock = context.clock
        return DriverSource(offsets: [:], setup: { () throws(SensorError) in
            try configure()
            configuredAt.withLock { $0 = clock.nowNanoseconds() }
        }, read: { () throws(SensorError) in
            try monitor.poll()
            do throws(SensorError) {
                return Measurement(heartRate: try monitor.reading(), oxygenSaturation: monitor.oxygenSaturation())
            } catch {
                // Right after configuration the FIFO has not filled yet: still starting, not "no signal".
                let since = configuredAt.withLock { $0 }.map { clock.nowNanoseconds() &- $0 } ?? .max
                guard case .noSignal = error, since < PPGHeartRateMonitor.sampleTimeoutNanoseconds else { throw error }
                return Measurement(heartRate: HeartRateReading(beatsPerMinute: nil, rrIntervalsMilliseconds: [], contact: .unsupported),
                                   oxygenSaturation: .failure(.acquiring))
            }
        }, close: context.close)
    }

    /// Drains the FIFO every `pollMilliseconds` (the 32-sample MAX3010x FIFO holds 320 ms at 100 Hz,
    /// the MAX30100's 16 samples 160 ms) for `seconds` and reports the rate with every RR-interval seen.
    static func collectHeartRate(_ monitor: PPGHeartRateMonitor, pollMilliseconds: Double, seconds: Double,
                                 clock: any SensorClock, name: String) throws(SensorError) -> String {
        let polls = max(1, Int(saturating: seconds * 1000 / pollMilliseconds))
        var intervals: [Double] = []
        for _ in 0..<polls {
            clock.sleep(milliseconds: pollMilliseconds)
            try monitor.poll()
            if let partial = try? monitor.reading() { intervals += partial.rrIntervalsMilliseconds }
        }
        var reading = try monitor.reading()
        reading.rrIntervalsMilliseconds = intervals + reading.rrIntervalsMilliseconds
        let rate = ReadingText.heartRate(reading, name: name)
        guard reading.contact != .notDetected, let oxygenSaturation = monitor.oxygenSaturation() else { return rate }
        return rate + "; " + ReadingText.oxygenSaturation(oxygenSaturation)
    }
}

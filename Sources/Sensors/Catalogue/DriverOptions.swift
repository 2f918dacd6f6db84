/// Driver settings; each field applies to the drivers named in its comment and is rejected for
/// others. Drivers added since keep a settings value of their own in `settings` instead of a field.
public struct DriverOptions: Sendable, Equatable {
    /// Settings values of drivers that define their own (`DriverSettings`), by type.
    public var settings = DriverSettingsTable()
    /// bme280: oversampling of temperature, pressure and humidity: 0 (skipped), 1, 2, 4, 8 or 16.
    public var temperatureOversampling: Int?
    public var pressureOversampling: Int?
    public var humidityOversampling: Int?
    /// bme280: IIR filter coefficient (`iir-filter`: off, 2, 4, 8 or 16); nil means the driver's default, off.
    public var iirFilter: BME280.FilterCoefficient?
    /// max30102 / max30101: sample rate in Hz (50, 100, 200 or 400); max30100: 50 or 100.
    public var sampleRate: Int?
    /// max30102 / max30101: LED current in mA (0 … 51); max30100: 0 … 50 (its nearest step).
    public var ledCurrentMilliamps: Double?
    /// gpio-pulse: `rising`, `falling` or `both`.
    public var edge: String?
    /// gpio-pulse: `pull-up`, `pull-down`, `disabled` or `as-is`.
    public var bias: String?
    /// tmp102: conversions per second in continuous mode (`conversion-rate`: 0.25, 1, 4 or 8 Hz); nil keeps the chip's 4 Hz.
    public var conversionRate: TMP102.ConversionRate?
    /// tmp102: 13-bit extended mode (`extended-mode: on`) for readings above 128 °C, up to 150 °C.
    public var extendedMode: Bool?
    /// mcp9808: resolution step (`resolution`: 0.5, 0.25, 0.125 or 0.0625 °C); nil keeps the chip's 0.0625 °C.
    public var resolution: MCP9808.Resolution?
    /// sht31: single-shot repeatability (`repeatability`: high, medium or low); nil means high.
    public var repeatability: SHT31.Repeatability?
    /// sht31: the heater (`heater`: on or off); on raises the temperature reading, so it is for diagnosis only.
    public var heater: Bool?
    /// sht4x: measurement precision (`precision`: high, medium or low); nil means high.
    public var precision: SHT4x.Precision?
    /// sht4x: the heater pulse (`heater: {power, pulse, every, cool-down}`), how often the daemon runs
    /// it and how long readings are withheld after it (nil: `SHT4xHeaterCycle.Schedule.defaultCoolDown`).
    public var heaterPulse: SHT4x.HeaterPulse?
    public var heaterEvery: Duration?
    public var heaterCoolDown: Duration?
    /// tmp117 / max30205: continuous conversions or one per read.
    public var mode: ConversionMode?
    /// tmp117: CONV, the time between conversions.
    public var conversionCycle: TMP117.ConversionCycle?
    /// tmp117: AVG, conversions averaged per result.
    public var averaging: TMP117.Averaging?
    /// max30205: DATA FORMAT, normal or extended (+64 °C).
    public var dataFormat: MAX30205.DataFormat?

    public init(temperatureOversampling: Int? = nil, pressureOversampling: Int? = nil, humidityOversampling: Int? = nil,
                sampleRate: Int? = nil, ledCurrentMilliamps: Double? = nil, edge: String? = nil, bias: String? = nil,
                iirFilter: BME280.FilterCoefficient? = nil, conversionRate: TMP102.ConversionRate? = nil,
                extendedMode: Bool? = nil, resolution: MCP9808.Resolution? = nil, repeatability: SHT31.Repeatability? = nil,
                heater: Bool? = nil, precision: SHT4x.Precision? = nil,
                heaterPulse: SHT4x.HeaterPulse? = nil, heaterEvery: Duration? = nil, heaterCoolDown: Duration? = nil,
                mode: ConversionMode? = nil, conversionCycle: TMP117.ConversionCycle? = nil, averaging: TMP117.Averaging? = nil,
                dataFormat: MAX30205.DataFormat? = nil) {
        self.mode = mode
        self.conversionCycle = conversionCycle
        self.averaging = averaging
        self.dataFormat = dataFormat
        self.temperatureOversampling = temperatureOversampling
        self.iirFilter = iirFilter
        self.pressureOversampling = pressureOversampling
        self.humidityOversampling = humidityOversampling
        self.sampleRate = sampleRate
        self.ledCurrentMilliamps = ledCurrentMilliamps
        self.edge = edge
        self.bias = bias
        self.conversionRate = conversionRate
        self.extendedMode = extendedMode
        self.resolution = resolution
        self.repeatability = repeatability
        self.heater = heater
        self.precision = precision
        self.heaterPulse = heaterPulse
        self.heaterEvery = heaterEvery
        self.heaterCoolDown = heaterCoolDown
    }
}

extension DriverOptions {
    /// sht4x: the heater schedule, when a pulse and its period are set.
    public var sht4xHeaterSchedule: SHT4xHeaterCycle.Schedule? {
        guard let heaterPulse, let heaterEvery else { return nil }
        return SHT4xHeaterCycle.Schedule(pulse: heaterPulse, every: heaterEvery,
                                         coolDown: heaterCoolDown ?? SHT4xHeaterCycle.Schedule.defaultCoolDown)
    }

    /// The TMP117 settings the options ask for, the chip's power-on values where they say nothing.
    public var tmp117Settings: TMP117.Settings {
        let defaults = TMP117.Settings()
        return TMP117.Settings(mode: mode ?? defaults.mode, conversionCycle: conversionCycle ?? defaults.conversionCycle,
                               averaging: averaging ?? defaults.averaging)
    }

    /// The MAX30205 settings the options ask for, the chip's power-on values where they say nothing.
    public var max30205Settings: MAX30205.Settings {
        let defaults = MAX30205.Settings()
        return MAX30205.Settings(mode: mode ?? defaults.mode, dataFormat: dataFormat ?? defaults.dataFormat)
    }

    /// max30102 / max30101: the sample rate and LED current asked for (both LEDs alike), the driver's defaults elsewhere.
    public var max3010xConfiguration: MAX3010x.Configuration { ppgConfiguration(MAX3010x.Configuration()) }

    /// max30100: as `max3010xConfiguration`, for its own register map.
    public var max30100Configuration: MAX30100.Configuration { ppgConfiguration(MAX30100.Configuration()) }

    /// The chip's defaults with what the options ask for.
    private func ppgConfiguration<Configuration: PPGLEDConfiguration>(_ defaults: Configuration) -> Configuration {
        var configuration = defaults
        if let sampleRate { configuration.sampleRate = sampleRate }
        if let ledCurrentMilliamps {
            configuration.redMilliamps = ledCurrentMilliamps
            configuration.irMilliamps = ledCurrentMilliamps
        }
        return configuration
    }

    /// gpio-pulse: the `edge` asked for; rising when none is.
    public var gpioEdge: GPIOEdgeSelection {
        switch edge {
        case "falling": .falling
        case "both": .both
        default: .rising
        }
    }

    /// gpio-pulse: the `bias` asked for; pull-down when none is.
    public var gpioBias: GPIOBias {
        switch bias {
        case "pull-up": .pullUp
        case "disabled": .disabled
        case "as-is": .asIs
        default: .pullDown
        }
    }

    /// bme280: an `oversampling` ratio as the driver takes it; `fallback` when the channel's is not set.
    public static func bme280Oversampling(_ factor: Int?, default fallback: BME280.Oversampling) -> BME280.Oversampling {
        switch factor {
        case 0: .skipped
        case 1: .x1
        case 2: .x2
        case 4: .x4
        case 8: .x8
        case 16: .x16
        default: fallback
        }
    }
}

import Sensors
import Testing
@testable import BridgeConfiguration

@Suite struct NewDriverConfigurationTests {
    @Test func chipSettingsAreReadIntoTypedOptions() throws {
        let yaml = """
            board: simulated
            sensors:
              - name: skin
                driver: tmp117
                options: {mode: continuous, conversion-cycle: 500ms, averaging: 32}
                calibration-offset: -0.05
                publish: [temperature-measurement]
              - name: patch
                driver: max30205
                address: 0x49
                options: {mode: one-shot, data-format: extended}
              - {name: ir, driver: mlx90614, calibration-offset: {temperature: 0.4}}
              - {name: pulse, driver: max30100, options: {sample-rate: 50, led-current-ma: 27.1}, publish: [heart-rate-measurement]}
              - {name: room, driver: aht20, calibration-offset: {humidity: -2}, publish: [humidity]}
              - {name: desk, driver: shtc3}
              - {name: dht, driver: iio, device: dht11, publish: [es-temperature]}
              - {name: probe, driver: hwmon, device: "/sys/class/hwmon/hwmon2"}
            """
        let configuration = try load(yaml).get()
        let sensors = configuration.sensors
        #expect(sensors.map(\.driver) == [.tmp117, .max30205, .mlx90614, .max30100, .aht20, .shtc3, .iio, .hwmon])
        #expect(sensors[0].options.settings(TMP117Driver.Settings.self).chip == TMP117.Settings(mode: .continuous, conversionCycle: .ms500, averaging: .x32))
        #expect(sensors[0].calibrationOffsets == [.temperature: -0.05])
        #expect(sensors[0].i2cAddress == 0x48)
        #expect(sensors[1].options.settings(MAX30205Driver.Settings.self).chip == MAX30205.Settings(mode: .oneShot, dataFormat: .extended))
        #expect(sensors[1].i2cAddress == 0x49)
        #expect(sensors[2].i2cAddress == 0x5A)
        #expect(sensors[2].calibrationOffsets == [.temperature: 0.4])
        #expect(sensors[3].i2cAddress == 0x57)
        #expect(sensors[3].options.settings(PPGSettings.self).sampleRate == 50)
        // The MAX30100's 16-sample FIFO holds 160 ms at 100 Hz: polled every 100 ms by default.
        #expect(sensors[3].pollInterval == .milliseconds(100))
        #expect(sensors[4].i2cAddress == 0x38)
        #expect(sensors[4].calibrationOffsets == [.humidity: -2])
        #expect(sensors[5].i2cAddress == 0x70)
        #expect(sensors[6].device == "dht11")
        #expect(sensors[6].i2cAddress == nil)
        #expect(sensors[7].device == "/sys/class/hwmon/hwmon2")
    }

    @Test func settingsAndDevicesAreChecked() {
        let yaml = """
            board: simulated
            sensors:
              - {name: a, driver: tmp117, options: {conversion-cycle: 100ms, averaging: 16, data-format: extended}}
              - {name: b, driver: tmp117, address: 0x49, options: {conversion-cycle: 125ms, averaging: 64}}
              - {name: c, driver: max30205, address: 0x4A, options: {mode: single, averaging: 8}}
              - {name: d, driver: max30100, options: {sample-rate: 200, led-current-ma: 51}, poll-interval: 250ms}
              - {name: e, driver: iio}
              - {name: f, driver: hwmon, device: "../hwmon0"}
              - {name: g, driver: aht20, device: dht11}
              - {name: h, driver: iio, device: dht11, address: 0x38}
              - {name: i, driver: tmp117, address: 0x4A, options: {mode: one-shot, conversion-cycle: 4s}}
            """
        #expect(problems(yaml) == [
            "sensors[0].options.conversion-cycle (line 3): '100ms' is not allowed here; did you mean '500ms'?",
            "sensors[0].options.averaging (line 3): 16 is not one of 1, 8, 32, 64",
            "sensors[0].options.data-format (line 3): tmp117 takes no 'data-format' option; it applies to max30205",
            "sensors[1].options.conversion-cycle (line 4): with averaging 64 one conversion takes 1 s, longer than conversion-cycle 125ms; use conversion-cycle 1s or longer, or less averaging",
            "sensors[2].options.mode (line 5): 'single' is not allowed here (use one of continuous, one-shot)",
            "sensors[2].options.averaging (line 5): max30205 takes no 'averaging' option; it applies to tmp117",
            "sensors[3].poll-interval (line 6): 250ms is out of range 50ms…150ms for max30100: its FIFO holds 16 samples, 160 ms at 100 Hz",
            "sensors[3].options.sample-rate (line 6): 200 is not one of 50, 100 Hz",
            "sensors[3].options.led-current-ma (line 6): 51 is out of range 0…50 mA",
            "sensors[4].device (line 7): missing; iio needs the kernel device's name, e.g. dht11 or bme280 (cat /sys/bus/iio/devices/*/name)",
            "sensors[5].device (line 8): '../hwmon0' is not a device name (like dht11, no spaces or '/') or an absolute path of its /sys/class/hwmon directory",
            "sensors[6].device (line 9): 'device' applies to iio and hwmon (the kernel device's name), not to aht20",
            "sensors[7].address (line 10): 'address' applies to the I2C drivers (tmp102, mcp9808, bme280, sht31, sht4x, max30102, max30101, max17048, tmp117, max30205, mlx90614, max30100, aht20, shtc3, hdc1080), not to iio",
            "sensors[8].options.conversion-cycle (line 11): conversion-cycle sets the pace of mode: continuous; in one-shot mode the chip converts once per read, so leave it out",
        ])
    }

    @Test func iioPublishesWhatItsDriverMeasures() {
        // hwmon devices carry temperature and humidity channels at most.
        #expect(problems("board: simulated\nsensors:\n  - {name: w, driver: hwmon, device: w1_slave_temp, publish: [pressure]}") == [
            "sensors[0].publish[0] (line 3): hwmon does not measure pressure; it measures temperature, humidity; it can publish temperature-measurement, intermediate-temperature, es-temperature, humidity",
        ])
    }
}

import Testing
@testable import SensorCommands
@testable import Sensors

@Suite struct NewDriverCommandTests {
    func run(_ arguments: [String]) throws -> String {
        let command = try SensorCommand.parseAsRoot(arguments)
        guard let read = command as? SensorReadCommand else {
            Issue.record("parsed \(type(of: command)), expected SensorReadCommand")
            return ""
        }
        return try read.execute()
    }

    @Test func readsEveryNewSimulatedDriver() throws {
        #expect(try run(["read", "tmp117", "--simulated"]) == "tmp117: 36.75 °C")
        #expect(try run(["read", "tmp117", "--simulated", "--mode", "one-shot", "--averaging", "64"]) == "tmp117: 36.75 °C")
        #expect(try run(["read", "tmp117", "--simulated", "--conversion-cycle", "15.5ms", "--averaging", "1"]) == "tmp117: 36.75 °C")
        #expect(try run(["read", "max30205", "--simulated"]) == "max30205: 36.90 °C")
        #expect(try run(["read", "max30205", "--simulated", "--mode", "one-shot", "--data-format", "extended"]) == "max30205: 36.90 °C")
        #expect(try run(["read", "mlx90614", "--simulated"]) == "mlx90614: object 34.51 °C, ambient 23.25 °C")
        // The simulated AHT20 starts uncalibrated: the read initialises it first.
        #expect(try run(["read", "aht20", "--simulated"]) == "aht20: 22.50 °C, 48.0 %RH")
        #expect(try run(["read", "shtc3", "--simulated"]) == "shtc3: 22.50 °C, 48.0 %RH")
        #expect(try run(["read", "iio", "--simulated", "--device", "dht11"]) == "iio dht11: 22.40 °C, 51.0 %RH")
        #expect(try run(["read", "iio", "--simulated", "--device", "bme280"]) == "iio bme280: 21.87 °C, 44.1 %RH, 1013.25 hPa")
        #expect(try run(["read", "hwmon", "--simulated", "--device", "w1_slave_temp"]) == "hwmon w1_slave_temp: 19.62 °C")
        let pulse = try run(["read", "max30100", "--simulated", "--seconds", "10"])
        #expect(pulse.hasPrefix("max30100: 7"), "\(pulse)")
    }

    /// Added through the driver catalogue only: `sensor read` finds it there.
    @Test func readsTheSimulatedHDC1080() throws {
        #expect(try run(["read", "hdc1080", "--simulated"]) == "hdc1080: 22.50 °C, 48.0 %RH")
        #expect(try run(["read", "hdc1080", "--simulated", "--unit", "fahrenheit", "--calibration-offset", "humidity=2"])
                == "hdc1080: 72.50 °F, 50.0 %RH")
        #expect(throws: SensorCommandError.usage("--heater: hdc1080 takes no 'heater' option; it applies to sht31, sht4x")) {
            try run(["read", "hdc1080", "--simulated", "--heater", "on"])
        }
        // Its own options need no flag of their own: --option takes any driver's, by the file's names.
        #expect(try run(["read", "hdc1080", "--simulated", "--option", "humidity-resolution=11", "--option", "temperature-resolution=11"])
                == "hdc1080: 22.50 °C, 48.0 %RH")
        #expect(throws: SensorCommandError.usage("--option humidity-resolution: 9 is not one of 8, 11, 14 bits")) {
            try run(["read", "hdc1080", "--simulated", "--option", "humidity-resolution=9"])
        }
        #expect(throws: SensorCommandError.usage("--option humidity-resolution: tmp102 takes no 'humidity-resolution' option; it applies to hdc1080")) {
            try run(["read", "tmp102", "--simulated", "--option", "humidity-resolution=11"])
        }
        #expect(throws: SensorCommandError.usage("--mode is given more than once (as --mode or --option mode=…); give each option once")) {
            try run(["read", "tmp117", "--simulated", "--mode", "continuous", "--option", "mode=one-shot"])
        }
    }

    @Test func settingsUseTheConfigurationNamesAndAreChecked() throws {
        #expect(throws: SensorCommandError.usage("--mode: sht31 takes no 'mode' option; it applies to tmp117, max30205")) {
            try run(["read", "sht31", "--simulated", "--mode", "one-shot"])
        }
        #expect(throws: SensorCommandError.usage("--data-format: 'wide' is not allowed here (use one of normal, extended)")) {
            try run(["read", "max30205", "--simulated", "--data-format", "wide"])
        }
        #expect(throws: SensorCommandError.usage("--averaging: 16 is not one of 1, 8, 32, 64")) {
            try run(["read", "tmp117", "--simulated", "--averaging", "16"])
        }
        #expect(throws: SensorCommandError.usage(
            "--conversion-cycle: with averaging 64 one conversion takes 1 s, longer than conversion-cycle 125ms; use conversion-cycle 1s or longer, or less averaging")) {
            try run(["read", "tmp117", "--simulated", "--conversion-cycle", "125ms", "--averaging", "64"])
        }
        #expect(throws: SensorCommandError.usage("--device applies to iio and hwmon, not to tmp117")) {
            try run(["read", "tmp117", "--simulated", "--device", "dht11"])
        }
        #expect(throws: SensorCommandError.usage("iio needs --device: the kernel device's name, e.g. dht11 (cat /sys/bus/iio/devices/*/name), or its sysfs directory")) {
            try run(["read", "iio", "--simulated"])
        }
        // The same rule as the file's `device`: no way out of the sysfs directory.
        #expect(throws: SensorCommandError.usage("--device: '/sys/bus/iio/devices/../../../etc' is not a device name (like dht11, no spaces or '/') or an absolute path of its /sys/bus/iio/devices directory")) {
            try run(["read", "iio", "--simulated", "--device", "/sys/bus/iio/devices/../../../etc"])
        }
        #expect(throws: SensorCommandError.usage("--conversion-cycle: conversion-cycle sets the pace of mode: continuous; in one-shot mode the chip converts once per read, so leave it out")) {
            try run(["read", "tmp117", "--simulated", "--mode", "one-shot", "--conversion-cycle", "1s"])
        }
    }

    @Test func aMissingKernelDeviceListsTheOnesFound() throws {
        #expect(throws: SensorCommandError.sensor(.unavailable(sensor: "hwmon dht11", reason: "no hwmon device is named 'dht11'; found: cpu_thermal, w1_slave_temp"))) {
            try run(["read", "hwmon", "--simulated", "--device", "dht11"])
        }
    }
}

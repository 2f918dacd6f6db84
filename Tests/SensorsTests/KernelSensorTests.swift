import BLECore
import Foundation
import Testing
@testable import Sensors

@Suite struct KernelSensorTests {
    @Test func dht11ByNameNotByIndex() throws {
        let tree = try SimulatedKernelSensorTree()
        // The DHT is iio:device1 on this boot; an ADC took iio:device0.
        try tree.addDevice(.iio, index: 0, name: "mcp3008", attributes: ["in_voltage0_raw": "512"])
        try tree.addDHT(index: 1, celsius: 21.7, relativeHumidity: 48.3)
        let reading = try tree.sensor(.iio, device: "dht11").read(required: [.temperature, .humidity])
        #expect(reading == KernelSensor.Reading(celsius: 21.7, relativeHumidity: 48.3))
    }

    @Test func processedAndRawChannelsInTheirABIUnits() throws {
        let tree = try SimulatedKernelSensorTree()
        // bmp280 driver (bme280): in_temp_input m°C, in_humidityrelative_input m%RH, in_pressure_input kPa.
        try tree.addDevice(.iio, index: 0, name: "bme280", attributes: [
            "in_temp_input": "21870", "in_humidityrelative_input": "44120", "in_pressure_input": "101.325",
        ])
        #expect(try tree.sensor(.iio, device: "bme280").read() == KernelSensor.Reading(celsius: 21.87, relativeHumidity: 44.12, pascals: 101_325))
        // Raw channels: (raw + offset) × scale, here in m°C (sysfs-bus-iio).
        try tree.addDevice(.iio, index: 1, name: "tmp-raw", attributes: ["in_temp_raw": "1200", "in_temp_offset": "-200", "in_temp_scale": "25"])
        #expect(try tree.sensor(.iio, device: "tmp-raw").read().celsius == 25)
        // hwmon: the lowest-numbered tempN_input, m°C.
        try tree.addDevice(.hwmon, index: 3, name: "w1_slave_temp", attributes: ["temp2_input": "30000", "temp1_input": "19625"])
        #expect(try tree.sensor(.hwmon, device: "w1_slave_temp").read() == KernelSensor.Reading(celsius: 19.625))
    }

    @Test func devicesByPath() throws {
        let tree = try SimulatedKernelSensorTree()
        let directory = try tree.addHwmonThermometer(index: 2, celsius: 36.5)
        #expect(try KernelSensor(kind: .hwmon, device: directory, root: "/nonexistent").read().celsius == 36.5)
        #expect(throws: SensorError.self) { try KernelSensor(kind: .hwmon, device: directory + "-gone").read() }
    }

    @Test func missingDevicesListWhatIsThere() throws {
        let tree = try SimulatedKernelSensorTree()
        try tree.addHwmonThermometer(index: 0, name: "cpu_thermal", celsius: 48)
        try tree.addHwmonThermometer(index: 1, celsius: 20)
        #expect(throws: SensorError.unavailable(sensor: "hwmon dht11", reason: "no hwmon device is named 'dht11'; found: cpu_thermal, w1_slave_temp")) {
            try tree.sensor(.hwmon, device: "dht11").read()
        }
        #expect(throws: SensorError.unavailable(
            sensor: "iio dht11",
            reason: "no iio device is named 'dht11' (is the device-tree overlay loaded, e.g. dtoverlay=dht11,gpiopin=4?); no iio devices at all under \(tree.root)/bus/iio/devices")) {
            try tree.sensor(.iio, device: "dht11").read()
        }
        try tree.addDHT(index: 0, celsius: 20, relativeHumidity: 50)
        try tree.addDHT(index: 1, celsius: 21, relativeHumidity: 50)
        #expect(throws: SensorError.unavailable(sensor: "iio dht11", reason: "2 devices are named 'dht11' (iio:device0, iio:device1): give the directory path instead")) {
            try tree.sensor(.iio, device: "dht11").read()
        }
    }

    @Test func missingChannelsAndBadValues() throws {
        let tree = try SimulatedKernelSensorTree()
        try tree.addHwmonThermometer(index: 0, celsius: 20)
        #expect(throws: SensorError.unavailable(sensor: "hwmon w1_slave_temp", reason: "the device has no humidity channel; it reports temperature")) {
            try tree.sensor(.hwmon, device: "w1_slave_temp").read(required: [.humidity])
        }
        try tree.addDevice(.iio, index: 0, name: "adc", attributes: ["in_voltage0_raw": "1"])
        #expect(throws: SensorError.self) { try tree.sensor(.iio, device: "adc").read() }
        try tree.addDevice(.iio, index: 1, name: "garbled", attributes: ["in_temp_input": "hot\u{1B}[2J"])
        #expect(throws: SensorError.invalidData(sensor: "iio garbled", reason: "\(tree.root)/bus/iio/devices/iio:device1/in_temp_input holds 'hot?[2J', not a number")) {
            try tree.sensor(.iio, device: "garbled").read()
        }
        // 4500 %RH (a wrong _scale) is refused, not published as 100 %; 101.2 % is tolerance, cropped.
        try tree.addDevice(.iio, index: 2, name: "scaled", attributes: ["in_temp_input": "21000", "in_humidityrelative_input": "4500000"])
        #expect(throws: SensorError.invalidData(sensor: "iio scaled", reason: "4500.0 %RH is not a relative humidity (check the channel's _scale and _offset)")) {
            try tree.sensor(.iio, device: "scaled").read()
        }
        try tree.addDevice(.iio, index: 3, name: "damp", attributes: ["in_temp_input": "21000", "in_humidityrelative_input": "101200"])
        #expect(try tree.sensor(.iio, device: "damp").read().relativeHumidity == 100)
    }

    /// The dht11 driver fails a read with EIO (bad checksum) or ETIMEDOUT (no reply); other errors
    /// are plain failures naming the file.
    @Test func aFailedKernelReadIsTransientAndSaysSo() throws {
        for code in [EIO, ETIMEDOUT] {
            guard case let .unavailable(_, reason) = KernelSensor.readError(BoundedFile.Failure(code: code), path: "/x", sensor: "iio dht11") else {
                Issue.record("errno \(code) was not reported as unavailable")
                continue
            }
            #expect(reason.hasPrefix("the kernel driver could not read the sensor this time"), "\(reason)")
            #expect(reason.hasSuffix("the next poll tries again"))
        }
        let tree = try SimulatedKernelSensorTree()
        let directory = try tree.addDHT(index: 0, celsius: 20, relativeHumidity: 50)
        // A directory where the attribute belongs: read(2) fails with EISDIR.
        try FileManager.default.removeItem(atPath: directory + "/in_temp_input")
        try FileManager.default.createDirectory(atPath: directory + "/in_temp_input", withIntermediateDirectories: false)
        #expect(throws: SensorError.unavailable(sensor: "iio dht11", reason: "reading \(directory)/in_temp_input failed: Is a directory")) {
            try tree.sensor(.iio, device: "dht11").read()
        }
    }
}

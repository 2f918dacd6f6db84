import BLECore
import Testing
@testable import BridgeConfiguration

@Suite struct PulseOximeterConfigurationTests {
    @Test func aMAX3010xPublishesTheContinuousMeasurementOfThePulseOximeterService() throws {
        let configuration = try load("""
            board: raspberry-pi-5
            sensors:
              - {name: finger, driver: max30102, publish: [plx-continuous-measurement, heart-rate-measurement]}
            """).get()
        let sensor = try #require(configuration.sensors.first)
        #expect(sensor.publish == [.plxContinuousMeasurement, .heartRateMeasurement])
        // Still a FIFO sensor: the heart-rate poll default and limits apply.
        #expect(sensor.pollInterval == .milliseconds(250))
        #expect(configuration.appearance == 0x0C40)  // Generic Pulse Oximeter
        #expect(configuration.advertising.services == [BluetoothUUID(0x1822), BluetoothUUID(0x180D)])
        #expect(PublishedCharacteristic.plxContinuousMeasurement.characteristicUUID == BluetoothUUID(0x2A5F))
        #expect(PublishedCharacteristic.plxContinuousMeasurement.delivery == .notify)
    }

    @Test func onlyARedAndInfraredSensorCanPublishIt() {
        let yaml = """
            board: raspberry-pi-5
            sensors:
              - {name: pulse, driver: gpio-pulse, line: GPIO17, publish: [plx-continuous-measurement]}
            """
        #expect(problems(yaml) == [
            "sensors[0].publish[0] (line 3): gpio-pulse does not measure spo2; it measures heart-rate; it can publish heart-rate-measurement",
        ])
    }
}

import BLECore
import Synchronization
import Testing
@testable import Sensors

@Suite struct BME280Tests {
    let calibration = SimulatedBME280.exampleCalibration

    @Test func datasheetWorkedExample() {
        // Bosch BMP280 datasheet 3.12 / 8.1: same T and P compensation as the BME280.
        let (centi, tFine) = calibration.compensateTemperature(adc: 519_888)
        #expect(tFine == 128_422)
        #expect(centi == 2508)
        // The datasheet's example result is 100653 Pa (integer) / 100653.27 Pa (double formula).
        let pressure = calibration.compensatePressure(adc: 415_148, tFine: tFine)
        #expect(pressure / 256 == 100_653)
        // Q24.8 value recomputed independently from the reference C with arbitrary-precision integers.
        #expect(pressure == 25_767_233)
        #expect(abs(Double(pressure) / 256 - 100_653.27) < 0.05)
    }

    @Test func humidityMatchesDatasheetFloatingPointFormula() {
        // Cross-check the integer formula against the datasheet's double-precision version.
        let c = calibration
        let tFine = c.compensateTemperature(adc: 519_888).tFine
        for adcH: Int32 in [20_000, 27_000, 30_000, 35_000] {
            let integer = Double(c.compensateHumidity(adc: adcH, tFine: tFine)) / 1024
            var h = Double(tFine) - 76800
            h = (Double(adcH) - (Double(c.h4) * 64 + Double(c.h5) / 16384 * h))
                * (Double(c.h2) / 65536 * (1 + Double(c.h6) / 67_108_864 * h * (1 + Double(c.h3) / 67_108_864 * h)))
            h = h * (1 - Double(c.h1) * h / 524_288)
            h = min(100, max(0, h))
            #expect(abs(integer - h) < 0.05, "adcH \(adcH): integer \(integer) vs float \(h)")
        }
    }

    @Test func calibrationRoundTripsThroughRegisters() throws {
        let blocks = calibration.registerBlocks
        #expect(blocks.block1.count == 26)
        #expect(blocks.block2.count == 7)
        #expect(try BME280Calibration(block1: blocks.block1, block2: blocks.block2) == calibration)
        #expect(throws: ByteReaderError.self) { try BME280Calibration(block1: Array(blocks.block1.prefix(10)), block2: blocks.block2) }
        let negative = BME280Calibration(t1: 1, t2: 2, t3: 3, p1: 4, p2: 5, p3: 6, p4: 7, p5: 8, p6: 9, p7: 10, p8: 11, p9: 12,
                                         h1: 13, h2: -14, h3: 15, h4: -300, h5: -7, h6: -16)
        let negativeBlocks = negative.registerBlocks
        #expect(try BME280Calibration(block1: negativeBlocks.block1, block2: negativeBlocks.block2) == negative)
    }

    @Test func forcedModeReadAgainstSimulatedChip() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedBME280(clock: clock)
        chip.setEnvironment(celsius: 23.4, pascals: 98_765, relativeHumidity: 55)
        bus.attach(chip, at: 0x76)
        let start = clock.nowNanoseconds()
        let reading = try BME280(bus: bus, clock: clock).read()
        #expect(abs(reading.celsius - 23.4) <= 0.01)
        #expect(abs(try #require(reading.pascals) - 98_765) < 1)
        #expect(abs(try #require(reading.relativeHumidity) - 55) < 0.05)
        // Waited out the just-powered chip's NVM copy (2 ms start-up, table 1), then the datasheet
        // maximum for 1x/1x/1x oversampling: 9.3 ms.
        #expect(clock.nowNanoseconds() - start == 2_000_000 + 9_300_000)
    }

    @Test func faults() {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedBME280(chipID: 0x58, clock: clock), at: 0x77)
        #expect(throws: SensorError.wrongChip(sensor: "BME280", expected: "chip ID 0x60",
                                              found: "chip ID 0x58 (a BMP280, which has no humidity)")) {
            try BME280(bus: bus, address: 0x77, clock: clock).read()
        }
        let chip = SimulatedBME280(clock: clock)
        clock.advance(milliseconds: 2)  // past its start-up: the hung chip below never clears im_update
        bus.attach(chip, at: 0x76)
        bus.inject(.nack, at: 0x76)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x76))) { try BME280(bus: bus, clock: clock).read() }
        bus.clearFaults()
        // A driver that waits less than the chip needs sees status.measuring and reports it.
        let impatient = BME280(bus: bus, clock: clock, temperature: .x1, pressure: .skipped, humidity: .skipped)
        bus.attach(SlowBME280(inner: chip, clock: clock), at: 0x76)
        #expect(throws: SensorError.conversionTimeout(sensor: "BME280", waitedMilliseconds: impatient.maxMeasurementMilliseconds)) {
            try impatient.read()
        }
    }
}

/// Wraps the simulated BME280 but reports "measuring" forever: a hung chip.
final class SlowBME280: SimulatedI2CDevice {
    let inner: SimulatedBME280
    let clock: SimulatedSensorClock
    private let pointerAtStatus = Mutex(false)
    init(inner: SimulatedBME280, clock: SimulatedSensorClock) { self.inner = inner; self.clock = clock }
    func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        try inner.receive(bytes)
        pointerAtStatus.withLock { $0 = bytes.first == 0xF3 }
    }
    func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        if pointerAtStatus.withLock({ $0 }) { return [BME280.statusMeasuring] }
        return try inner.transmit(count: count)
    }
    func stop() {}
}

@Suite struct SensirionTests {
    @Test func sht31ReadsAndStatus() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedSHT31(celsius: 24.5, relativeHumidity: 61.2, clock: clock)
        bus.attach(chip, at: 0x44)
        let sensor = SHT31(bus: bus, clock: clock)
        let reading = try sensor.read()
        #expect(abs(reading.celsius - 24.5) < 0.01)
        #expect(abs(reading.relativeHumidity - 61.2) < 0.01)
        let status = try sensor.readStatus()
        #expect(status.resetDetected)
        try sensor.send(.clearStatus)
        #expect(try !sensor.readStatus().resetDetected)
        try sensor.send(.heaterOn)
        #expect(try sensor.readStatus().heaterOn)
    }

    @Test func sht31Faults() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedSHT31(clock: clock)
        bus.attach(chip, at: 0x44)
        let sensor = SHT31(bus: bus, clock: clock)
        chip.corruptCRC(true)
        #expect(throws: SensorError.self) { try sensor.read() }
        chip.corruptCRC(false)
        // Reading before the measurement finished: the chip NACKs its address.
        try sensor.send(.singleShotHigh)
        #expect(throws: SensorBusError.noDevice(bus: 1, address: 0x44)) { try bus.read(address: 0x44, count: 6) }
        clock.advance(milliseconds: 15)
        _ = try bus.read(address: 0x44, count: 6)
        bus.inject(.stuckBus, at: 0x44)
        #expect(throws: SensorError.bus(.timeout(bus: 1, address: 0x44))) { try sensor.read() }
        bus.clearFaults()
        bus.unplug(address: 0x44)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x44))) { try sensor.read() }
    }

    @Test func sht4xReadsSerialAndFaults() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedSHT4x(celsius: -5.25, relativeHumidity: 30, clock: clock)
        bus.attach(chip, at: 0x44)
        let sensor = SHT4x(bus: bus, clock: clock)
        let reading = try sensor.read()
        #expect(abs(reading.celsius - -5.25) < 0.01)
        #expect(abs(reading.relativeHumidity - 30) < 0.01)
        #expect(try sensor.readSerialNumber() == 0x0F1E_2D3C)
        #expect(SHT4x.humidity(0) == 0)  // -6 %RH is cropped
        chip.corruptCRC(true)
        do {
            _ = try sensor.read()
            Issue.record("expected a CRC error")
        } catch {
            guard case .crcMismatch(sensor: "SHT4x", _, _) = error else { Issue.record("got \(error)"); return }
        }
        chip.corruptCRC(false)
        bus.inject(.nack, at: 0x44)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x44))) { try sensor.read() }
    }
}

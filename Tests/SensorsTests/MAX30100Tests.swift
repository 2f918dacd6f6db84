import Testing
@testable import Sensors

@Suite struct MAX30100Tests {
    func makeSensor(bpm: Double = 72, configuration: MAX30100.Configuration = MAX30100.Configuration())
        -> (SimulatedSensorClock, SimulatedI2CBus, SimulatedMAX30100, MAX30100) {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        // 16-bit counts: a finger gives roughly 30 000 of 65 535 on these boards.
        let ppg = SyntheticPPG(beatsPerMinute: bpm, duration: 60, dc: 30_000, amplitude: 400, noise: 0.05)
        let chip = SimulatedMAX30100(clock: clock) { t in (ppg.value(at: t) * 0.8, ppg.value(at: t)) }
        bus.attach(chip, at: 0x57)
        return (clock, bus, chip, MAX30100(bus: bus, configuration: configuration, clock: clock))
    }

    @Test func fifoLayoutFromDatasheet() {
        // Datasheet "FIFO Data": IR[15:8], IR[7:0], RED[15:8], RED[7:0] per sample.
        let samples = MAX30100.samples([0x12, 0x34, 0x56, 0x78, 0xFF, 0xFE, 0x00, 0x01, 0xAA])
        #expect(samples == [MAX3010x.Sample(red: 0x5678, ir: 0x1234), MAX3010x.Sample(red: 0x0001, ir: 0xFFFE)])
        #expect(MAX30100.samples([0x01, 0x02]).isEmpty)
    }

    @Test func registersWrittenFromDatasheet() throws {
        let (_, bus, _, sensor) = makeSensor(configuration: MAX30100.Configuration(sampleRate: 50, redMilliamps: 27.1, irMilliamps: 50))
        try sensor.configure()
        // Mode 0x06 = 011 (SpO2); SpO2 config 0x07 = HI_RES_EN | SR 000 (50 Hz) | LED_PW 11 (1600 µs);
        // LED config 0x09 = RED_PA 1000 (27.1 mA) | IR_PA 1111 (50.0 mA) (Tables 5 and 6).
        #expect(try bus.readByteData(address: 0x57, command: 0x06) == 0x03)
        #expect(try bus.readByteData(address: 0x57, command: 0x07) == 0x43)
        #expect(try bus.readByteData(address: 0x57, command: 0x09) == 0x8F)
        #expect(MAX30100.Configuration.currentCode(11.0) == 0x3)
        #expect(MAX30100.Configuration.currentCode(7.0) == 0x2)
        #expect(MAX30100.Configuration.currentCode(-.infinity) == 0)
        #expect(MAX30100.Configuration.currentCode(.nan) == 0)
    }

    @Test func fifoSamplesAndOverflow() throws {
        let (clock, _, _, sensor) = makeSensor()
        try sensor.configure()
        clock.advance(milliseconds: 105)  // 10 samples at 100 Hz
        let read = try sensor.readFIFO()
        #expect(read.samples.count == 10)
        #expect(read.samples.allSatisfy { ($0.ir ?? 0) > 20_000 && $0.red < $0.ir ?? 0 })
        clock.advance(milliseconds: 250)  // 25 samples, the FIFO holds 16
        let overflowed = try sensor.readFIFO()
        #expect(overflowed.samples.count == 16)
        #expect(overflowed.lostSamples == 9)
    }

    @Test func feedsTheHeartRateMonitor() throws {
        let (clock, _, _, sensor) = makeSensor(bpm: 84)
        try sensor.configure()
        let monitor = PPGHeartRateMonitor(sensor: sensor, fingerThreshold: MAX30100.fingerThreshold)
        for _ in 0..<200 {
            clock.advance(milliseconds: 100)
            try monitor.poll()
        }
        #expect(monitor.lostSamples == 0)
        let reading = try monitor.reading()
        #expect(abs((reading.beatsPerMinute ?? 0) - 84) < 2)
        #expect(reading.contact == .detected)
    }

    @Test func faults() throws {
        let (clock, bus, chip, sensor) = makeSensor()
        #expect(throws: SensorError.self) {
            try MAX30100(bus: bus, configuration: MAX30100.Configuration(sampleRate: 200), clock: clock).configure()
        }
        try sensor.configure()
        chip.powerCycle()
        #expect(throws: SensorError.deviceReset(sensor: "MAX30100")) { try sensor.readFIFO() }
        bus.attach(SimulatedMAX3010x(clock: clock) { _ in (0, 0) }, at: 0x58)
        #expect(throws: SensorError.wrongChip(sensor: "MAX30100", expected: "part ID 0x11",
                                              found: "part ID 0x15 (a MAX30102/MAX30101: use driver max30102)")) {
            try MAX30100(bus: bus, address: 0x58, clock: clock).configure()
        }
        bus.inject(.nack, at: 0x57)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x57))) { try sensor.readFIFO() }
    }
}

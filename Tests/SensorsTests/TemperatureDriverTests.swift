import Testing
@testable import Sensors

@Suite struct TMP102Tests {
    @Test func conversionVectorsFromDatasheet() {
        // TMP102 datasheet table 5 (12-bit) and table 6 (13-bit).
        #expect(TMP102.celsius(raw: 0x7FF0) == 127.9375)
        #expect(TMP102.celsius(raw: 0x1900) == 25)
        #expect(TMP102.celsius(raw: 0xFFF0) == -0.0625)
        #expect(TMP102.celsius(raw: 0xE700) == -25)
        #expect(TMP102.celsius(raw: 0x4B01) == 150)  // 13-bit: 0x960 << 3 | EM flag
        #expect(TMP102.celsius(raw: 0xF381) == -25)  // 13-bit: -400 << 3 | EM flag
    }

    @Test func readsAndSwitchesToExtendedMode() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedTMP102(celsius: 140, clock: clock)
        bus.attach(chip, at: 0x48)
        let sensor = TMP102(bus: bus, clock: clock)
        // 12-bit mode clips at 127.9375 °C.
        #expect(try sensor.read().celsius == 127.9375)
        try sensor.configure(extendedMode: true)
        #expect(chip.configuration & TMP102.extendedModeBit != 0)
        #expect(try sensor.read().celsius == 140)
        chip.setTemperature(-40.5)
        #expect(try sensor.read().celsius == -40.5)
    }

    @Test func faults() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedTMP102(clock: clock), at: 0x48)
        bus.attach(SimulatedMAX17048(), at: 0x49)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x4A))) { try TMP102(bus: bus, address: 0x4A, clock: clock).read() }
        bus.inject(.stuckBus, at: 0x48)
        #expect(throws: SensorError.bus(.timeout(bus: 1, address: 0x48))) { try TMP102(bus: bus, clock: clock).read() }
        bus.clearFaults()
        bus.unplug(address: 0x48)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x48))) { try TMP102(bus: bus, clock: clock).read() }
    }
}

@Suite struct MCP9808Tests {
    @Test func signAndFlags() {
        #expect(MCP9808.celsius(raw: 0xC19C) == 25.75)  // Tcrit+Tupper flags set, +25.75 °C
        #expect(MCP9808.celsius(raw: 0x1FFF) == -0.0625)
        #expect(MCP9808.celsius(raw: 0x1E70) == -25)
        #expect(MCP9808.raw(celsius: -25) == 0x1E70)
    }

    @Test func readsAndChecksIdentity() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedMCP9808(celsius: 31.25, clock: clock)
        bus.attach(chip, at: 0x18)
        bus.attach(SimulatedMCP9808(deviceID: 0x7500, clock: clock), at: 0x19)
        let sensor = MCP9808(bus: bus, clock: clock)
        #expect(try sensor.read().celsius == 31.25)
        chip.setTemperature(-12.5)
        #expect(try sensor.read().celsius == -12.5)
        #expect(throws: SensorError.self) { try MCP9808(bus: bus, address: 0x19, clock: clock).read() }
        bus.inject(.nack, at: 0x18)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x18))) { try sensor.read() }
    }
}

@Suite struct DS18B20Tests {
    @Test func parsesKernelOutput() throws {
        let text = "72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57 t=23125\n"
        #expect(try DS18B20.parse(w1Slave: text).celsius == 23.125)
    }

    @Test func treeReadsAndFaults() throws {
        let tree = try SimulatedOneWireTree()
        try tree.setTemperature(id: "28-000001", celsius: -10.125)
        try tree.setTemperature(id: "28-000002", celsius: 21.5, crcOK: false)
        try tree.write(id: "28-000003", scratchpad: Array(repeating: 0, count: 9), verdict: "YES", milli: 0)
        try tree.write(id: "28-000004", scratchpad: [0x50, 0x05, 0x4B, 0x46, 0x7F, 0xFF, 0x0C, 0x10, 0x1C], verdict: "YES", milli: 85000)
        #expect(try DS18B20.first(on: tree.bus).id == "28-000001")
        #expect(try DS18B20(bus: tree.bus, id: "28-000001").read().celsius == -10.125)
        #expect(throws: SensorError.self) { try DS18B20(bus: tree.bus, id: "28-000002").read() }
        do {
            _ = try DS18B20(bus: tree.bus, id: "28-000002").read()
        } catch {
            // Linux 5.9+ gives an empty w1_slave when every CRC retry failed.
            guard case .noSignal = error else { Issue.record("expected no answer, got \(error)"); return }
        }
        #expect(throws: SensorError.self) { try DS18B20(bus: tree.bus, id: "28-000003").read() }
        #expect(throws: SensorError.self) { try DS18B20(bus: tree.bus, id: "28-000004").read() }
        try tree.unplug(id: "28-000001")
        #expect(throws: SensorError.oneWire(.deviceNotFound(id: "28-000001", root: tree.root))) {
            try DS18B20(bus: tree.bus, id: "28-000001").read()
        }
        #expect(throws: SensorError.self) { try DS18B20.parse(w1Slave: "garbage") }
        #expect(throws: SensorError.oneWire(.busMissing(root: "/nonexistent-w1"))) {
            try DS18B20.first(on: OneWireBus(root: "/nonexistent-w1"))
        }
    }
}

@Suite struct CPUTemperatureTests {
    @Test func readsCPUZone() throws {
        let tree = try SimulatedThermalTree()
        try tree.setZone(0, type: "gpu-thermal", milliCelsius: "60000")
        try tree.setZone(1, type: "cpu-thermal", milliCelsius: "47234")
        #expect(try CPUTemperature(zones: tree.zones).read().celsius == 47.234)
        try tree.setZone(1, type: "cpu-thermal", milliCelsius: "error")
        #expect(throws: SensorError.self) { try CPUTemperature(zones: tree.zones).read() }
        #expect(throws: SensorError.self) { try CPUTemperature(zones: ThermalZones(root: "/nonexistent")).read() }
    }
}

@Suite struct MAX17048Tests {
    @Test func readsGauge() throws {
        let bus = SimulatedI2CBus()
        let chip = SimulatedMAX17048(cellVolts: 3.7, percent: 55.5)
        bus.attach(chip, at: 0x36)
        let reading = try MAX17048(bus: bus).read()
        #expect(abs(reading.cellVolts - 3.7) < 0.0001)
        #expect(reading.stateOfChargePercent == 55.5)
        #expect(MAX17048.volts(vcell: 0xCB20) == 52000 * 78.125e-6)
        chip.set(cellVolts: 0.1, percent: 3, ratePercentPerHour: 0)
        #expect(throws: SensorError.self) { try MAX17048(bus: bus).read() }
        bus.attach(SimulatedMAX17048(version: 0x1234), at: 0x37)
        #expect(throws: SensorError.self) { try MAX17048(bus: bus, address: 0x37).read() }
        bus.inject(.ioError, at: 0x36)
        #expect(throws: SensorError.bus(.ioError(bus: 1, address: 0x36))) { try MAX17048(bus: bus).read() }
    }
}

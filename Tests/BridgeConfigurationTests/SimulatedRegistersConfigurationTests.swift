import Testing
@testable import BridgeConfiguration

/// `simulation: {registers: …}`: raw register bytes for the simulated chip, checked against the
/// ranges each chip has.
@Suite struct SimulatedRegistersConfigurationTests {
    @Test func rawRegistersByStartRegister() throws {
        let sensors = try load("""
            board: simulated
            sensors:
              - name: room
                driver: bme280
                simulation:
                  registers: {0x88: "70 6B 43 67", 0xE1: 6A01, 0xF7: "65 5A C0 7E ED 00 75 30"}
              - {name: body, driver: tmp102, simulation: {registers: {0x00: "24 D0"}}}
            """).get().sensors
        #expect(sensors[0].simulation.registers == [
            .init(start: 0x88, bytes: [0x70, 0x6B, 0x43, 0x67]), .init(start: 0xE1, bytes: [0x6A, 0x01]),
            .init(start: 0xF7, bytes: [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00, 0x75, 0x30]),
        ])
        #expect(sensors[1].simulation.registers == [.init(start: 0x00, bytes: [0x24, 0xD0])])
    }

    @Test func registersOutsideTheChipsRangesOrMixedWithValuesAreRefused() {
        #expect(problems("""
            board: simulated
            sensors:
              - {name: a, driver: bme280, simulation: {registers: {0xF7: "65 5A C0", 0x100: "00", 0x88: "7G"}}}
              - {name: b, driver: tmp102, simulation: {celsius: 20, registers: {0x00: "24 D0"}}}
              - {name: c, driver: sht31, simulation: {registers: {0x00: "00"}}}
              - {name: d, driver: mcp9808, simulation: {registers: [1, 2]}}
            """) == [
            "sensors[0].simulation.registers.0xF7 (line 3): 3 byte(s) from 0xF7 do not fit; bme280 takes calibration block 1 0x88…0xA1, "
                + "calibration block 2 0xE1…0xE7, the data registers press_msb…hum_lsb 0xF7…0xFE (all 8 bytes)",
            "sensors[0].simulation.registers (line 3): '0x100' is not a register number 0x00…0xFF",
            "sensors[0].simulation.registers.0x88 (line 3): '7G' is not hex bytes like \"70 6B 43\"",
            "sensors[1].simulation.registers (line 4): give the chip's registers or its values (celsius), not both",
            "sensors[2].simulation.registers (line 5): sht31 is simulated from values only; registers apply to bme280, hdc1080, mcp9808, tmp102",
            "sensors[3].simulation.registers (line 6): expected a map of start register to hex bytes, e.g. {0x88: \"70 6B 43 67\"}, found a list",
        ])
    }
}

extension SimulatedRegistersConfigurationTests {
    @Test func overlappingSplitOrIncompleteRegistersAreRefused() {
        #expect(problems("""
            board: simulated
            sensors:
              - {name: a, driver: bme280, simulation: {registers: {0x88: "70 6B 43 67", 0x89: "FF FF", 0xF7: "65 5A C0 7E ED 00 75 30"}}}
              - {name: b, driver: tmp102, simulation: {registers: {0x00: "2 4D 0"}}}
              - {name: c, driver: bme280, bus: 2, simulation: {registers: {0x88: "70 6B"}}}
              - {name: d, driver: bme280, bus: 3, simulation: {registers: {0x88: "70 6B", 0xF7: "65 5A"}}}
            """) == [
            "sensors[0].simulation.registers.0x89 (line 3): overlaps the bytes given from 0x88; give each register once",
            "sensors[1].simulation.registers.0x00 (line 4): '2 4D 0' is not hex bytes like \"70 6B 43\"",
            "sensors[2].simulation.registers (line 5): the data registers press_msb…hum_lsb 0xF7…0xFE missing: without them the simulated bme280 has no measurement to return",
            // Given but refused: one message, not also "missing".
            "sensors[3].simulation.registers.0xF7 (line 6): 2 byte(s) from 0xF7 do not fit; bme280 takes calibration block 1 0x88…0xA1, "
                + "calibration block 2 0xE1…0xE7, the data registers press_msb…hum_lsb 0xF7…0xFE (all 8 bytes)",
        ])
    }
}

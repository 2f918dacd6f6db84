import Testing
@testable import Sensors

@Suite struct CRCTests {
    @Test func sensirionDatasheetVector() {
        #expect(CRC8.sensirion([0xBE, 0xEF]) == 0x92)
    }

    @Test func maximScratchpadVector() {
        // A DS18B20 scratchpad as printed by w1-therm, CRC byte last.
        let scratchpad: [UInt8] = [0x72, 0x01, 0x4B, 0x46, 0x7F, 0xFF, 0x0E, 0x10]
        #expect(CRC8.maxim(scratchpad) == 0x57)
        #expect(CRC8.maxim(scratchpad + [0x57]) == 0)
    }
}

@Suite struct BusTests {
    final class Echo: SimulatedI2CDevice {
        func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {}
        func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] { Array(repeating: 0xAB, count: count) }
        func stop() {}
    }

    @Test func missingLinuxBusHasActionableMessage() {
        #expect(throws: SensorBusError.busMissing(bus: 97)) { try LinuxI2CBus(busNumber: 97) }
        #expect(SensorBusError.busMissing(bus: 1).description
            == "/dev/i2c-1 does not exist: enable I2C (raspi-config / dtparam=i2c_arm=on)")
        #expect(SensorBusError.noDevice(bus: 1, address: 0x48).description
            == "no device answered at 0x48 on i2c-1: check wiring and address (i2cdetect -y 1)")
    }

    @Test func errnoMapping() {
        #expect(LinuxI2CBus.error(6, bus: 1, address: 0x48) == .noDevice(bus: 1, address: 0x48))  // ENXIO
        #expect(LinuxI2CBus.error(121, bus: 1, address: 0x48) == .remoteIO(bus: 1, address: 0x48))  // EREMOTEIO
        #expect(LinuxI2CBus.error(5, bus: 1, address: 0x48) == .ioError(bus: 1, address: 0x48))  // EIO
        #expect(LinuxI2CBus.error(110, bus: 1, address: 0x48) == .timeout(bus: 1, address: 0x48))  // ETIMEDOUT
    }

    @Test func simulatedFaults() throws {
        let bus = SimulatedI2CBus(busNumber: 3)
        bus.attach(Echo(), at: 0x20)
        #expect(try bus.readByteData(address: 0x20, command: 0) == 0xAB)
        #expect(throws: SensorBusError.noDevice(bus: 3, address: 0x21)) { try bus.readByte(address: 0x21) }
        bus.inject(.nack, at: 0x20)
        #expect(throws: SensorBusError.noDevice(bus: 3, address: 0x20)) { try bus.readByte(address: 0x20) }
        bus.clearFaults()
        bus.inject(.ioError, at: 0x20)
        #expect(throws: SensorBusError.ioError(bus: 3, address: 0x20)) { try bus.readByte(address: 0x20) }
        bus.clearFaults()
        bus.inject(.dataNack, at: 0x20)
        #expect(throws: SensorBusError.remoteIO(bus: 3, address: 0x20)) { try bus.writeByte(address: 0x20, value: 1) }
        bus.clearFaults()
        bus.inject(.stuckBus, at: 0x20)
        #expect(throws: SensorBusError.timeout(bus: 3, address: 0x20)) { try bus.readByte(address: 0x20) }
        bus.clearFaults()
        bus.unplug(address: 0x20)
        #expect(throws: SensorBusError.noDevice(bus: 3, address: 0x20)) { try bus.readByte(address: 0x20) }
    }

    @Test func blockLimits() {
        let bus = SimulatedI2CBus()
        bus.attach(Echo(), at: 0x20)
        #expect(throws: SensorBusError.self) { try bus.readI2CBlockData(address: 0x20, command: 0, count: 33) }
        #expect(throws: SensorBusError.self) { try bus.writeBlockData(address: 0x20, command: 0, bytes: Array(repeating: 0, count: 33)) }
        // 0xAB as an SMBus count byte is out of range: a clear error, not a huge read.
        #expect(throws: SensorBusError.self) { try bus.readBlockData(address: 0x20, command: 0) }
    }

    @Test func simulatedClockAdvancesOnlyWhenSleeping() {
        let clock = SimulatedSensorClock(startNanoseconds: 0)
        clock.sleep(milliseconds: 15)
        #expect(clock.nowNanoseconds() == 15_000_000)
    }
}

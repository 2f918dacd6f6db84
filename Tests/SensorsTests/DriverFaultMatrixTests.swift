import Testing
@testable import Sensors

/// Every I2C driver against every bus fault the simulated adapter can inject, plus bad CRC where the
/// chip sends one: each must throw the matching typed error, never return a number.
@Suite struct DriverFaultMatrixTests {
    enum Driver: String, CaseIterable, Sendable {
        case tmp102, mcp9808, bme280, sht31, sht4x, max17048, max3010x

        var address: UInt8 {
            switch self {
            case .tmp102: return 0x48
            case .mcp9808: return 0x18
            case .bme280: return 0x76
            case .sht31, .sht4x: return 0x44
            case .max17048: return 0x36
            case .max3010x: return 0x57
            }
        }

        /// Attaches a healthy chip and returns a closure doing one full read (for the MAX3010x,
        /// configure and drain the FIFO), so the fault can be injected between the two.
        func setUp(bus: SimulatedI2CBus, clock: SimulatedSensorClock) throws -> () throws(SensorError) -> Void {
            switch self {
            case .tmp102:
                bus.attach(SimulatedTMP102(clock: clock), at: address)
                let sensor = TMP102(bus: bus, clock: clock)
                return { () throws(SensorError) in _ = try sensor.read() }
            case .mcp9808:
                bus.attach(SimulatedMCP9808(clock: clock), at: address)
                let sensor = MCP9808(bus: bus, clock: clock)
                return { () throws(SensorError) in _ = try sensor.read() }
            case .bme280:
                let chip = SimulatedBME280(clock: clock)
                chip.setEnvironment(celsius: 20, pascals: 100_000, relativeHumidity: 40)
                bus.attach(chip, at: address)
                let sensor = BME280(bus: bus, clock: clock)
                return { () throws(SensorError) in _ = try sensor.read() }
            case .sht31:
                bus.attach(SimulatedSHT31(clock: clock), at: address)
                let sensor = SHT31(bus: bus, clock: clock)
                return { () throws(SensorError) in _ = try sensor.read() }
            case .sht4x:
                bus.attach(SimulatedSHT4x(clock: clock), at: address)
                let sensor = SHT4x(bus: bus, clock: clock)
                return { () throws(SensorError) in _ = try sensor.read() }
            case .max17048:
                bus.attach(SimulatedMAX17048(), at: address)
                let sensor = MAX17048(bus: bus)
                return { () throws(SensorError) in _ = try sensor.read() }
            case .max3010x:
                bus.attach(SimulatedMAX3010x(clock: clock) { _ in (100_000, 120_000) }, at: address)
                let sensor = MAX3010x(bus: bus, clock: clock)
                return { () throws(SensorError) in
                    try sensor.configure()
                    clock.advance(milliseconds: 100)
                    _ = try sensor.readFIFO()
                }
            }
        }
    }

    enum Fault: String, CaseIterable, Sendable {
        case nack, dataNack, ioError, stuckBus, unplugged
        /// A kernel driver bound the address: SMBus and raw (I2C_RDWR) transfers alike must see it.
        case claimedByKernel
    }

    @Test(arguments: Driver.allCases, Fault.allCases)
    func busFault(driver: Driver, fault: Fault) throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let read = try driver.setUp(bus: bus, clock: clock)
        try read()  // healthy first
        let address = driver.address
        let expected: SensorBusError
        switch fault {
        case .nack:
            bus.inject(.nack, at: address)
            expected = .noDevice(bus: 1, address: address)
        case .dataNack:
            bus.inject(.dataNack, at: address)
            expected = .remoteIO(bus: 1, address: address)
        case .ioError:
            bus.inject(.ioError, at: address)
            expected = .ioError(bus: 1, address: address)
        case .stuckBus:
            bus.inject(.stuckBus, at: address)
            expected = .timeout(bus: 1, address: address)
        case .claimedByKernel:
            bus.inject(.claimedByKernel, at: address)
            expected = .addressClaimed(bus: 1, address: address)
        case .unplugged:
            bus.unplug(address: address)
            expected = .noDevice(bus: 1, address: address)
        }
        #expect(throws: SensorError.bus(expected), "\(driver) with \(fault)") { try read() }
        if fault != .unplugged {
            bus.clearFaults()
            try read()  // recovers once the fault is gone
        }
    }

    @Test func badCRCOnSensirionChips() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let sht31 = SimulatedSHT31(clock: clock)
        bus.attach(sht31, at: 0x44)
        let sht4x = SimulatedSHT4x(clock: clock)
        bus.attach(sht4x, at: 0x45)
        sht31.corruptCRC(true)
        sht4x.corruptCRC(true)
        for (name, read) in [("SHT31", { () throws(SensorError) in _ = try SHT31(bus: bus, clock: clock).read() }),
                             ("SHT4x", { () throws(SensorError) in _ = try SHT4x(bus: bus, address: 0x45, clock: clock).read() })] {
            do {
                try read()
                Issue.record("\(name) accepted a corrupted CRC")
            } catch {
                guard case let .crcMismatch(sensor, expected, received) = error else { Issue.record("\(name): got \(error)"); continue }
                #expect(sensor == name)
                #expect(expected ^ received == 0xFF, "the simulated chips flip every CRC bit")
            }
        }
        #expect(throws: SensorError.self) { try SHT31(bus: bus, clock: clock).readStatus() }
        #expect(throws: SensorError.self) { try SHT4x(bus: bus, address: 0x45, clock: clock).readSerialNumber() }
    }
}

import Foundation
import Testing
@testable import Sensors

/// `LinuxI2CBus` against the real kernel: i2c-dev over the i2c-stub adapter, run inside the kernel
/// tests' VM (Tests/KernelVM), which loads `i2c-stub chip_addr=0x50` and sets
/// BLESENSOR_TEST_I2C_STUB_BUS to its bus number. Skipped elsewhere (this machine has no I2C).
///
/// i2c-stub keeps one 16-bit word per command: a word write stores it as the adapter assembled it
/// (the first byte on the wire is the low byte, SMBus 2.0 §5.5.4-5.5.5), a byte read returns its low byte.
@Suite(.enabled(if: KernelI2CStub.bus != nil, "needs i2c-stub: set BLESENSOR_TEST_I2C_STUB_BUS (Tests/KernelVM does)"))
struct KernelI2CStubTests {
    let bus: Int
    let chip: UInt8 = 0x50
    let absent: UInt8 = 0x51

    init() {
        bus = KernelI2CStub.bus ?? -1
    }

    @Test func smbusTransactionsRoundTrip() throws {
        let i2c = try LinuxI2CBus(busNumber: bus)
        try i2c.writeByteData(address: chip, command: 0x10, value: 0xA5)
        #expect(try i2c.readByteData(address: chip, command: 0x10) == 0xA5)
        try i2c.writeWordData(address: chip, command: 0x20, value: 0xBEEF)
        #expect(try i2c.readWordData(address: chip, command: 0x20) == 0xBEEF)
        for (offset, byte) in [UInt8(0x11), 0x22, 0x33, 0x44].enumerated() {
            try i2c.writeByteData(address: chip, command: 0x30 + UInt8(offset), value: byte)
        }
        #expect(try i2c.readI2CBlockData(address: chip, command: 0x30, count: 4) == [0x11, 0x22, 0x33, 0x44])
        try i2c.writeBlockData(address: chip, command: 0x40, bytes: [0xDE, 0xAD, 0x01])
        #expect(try i2c.readBlockData(address: chip, command: 0x40) == [0xDE, 0xAD, 0x01])
    }

    /// A big-endian register (TMP102 configuration, datasheet 7.5.3: first byte R1 R0 ..., second
    /// byte ... EM ...) written by the driver arrives MSB first: 0x60 then 0xB0 is the SMBus word 0xB060.
    @Test func driverWritesBigEndianRegistersMostSignificantByteFirst() throws {
        let i2c = try LinuxI2CBus(busNumber: bus)
        // Power-on configuration 0x60 0xA0 (datasheet Table 8) as the chip would send it.
        try i2c.writeWordData(address: chip, command: TMP102.Register.configuration.rawValue, value: 0xA060)
        try TMP102(bus: i2c, address: chip).configure(extendedMode: true)
        #expect(try i2c.readWordData(address: chip, command: TMP102.Register.configuration.rawValue) == 0xB060)
    }

    @Test func kernelErrorsBecomeActionableBusErrors() throws {
        let i2c = try LinuxI2CBus(busNumber: bus)
        // i2c-stub answers ENODEV for an address without a chip (a real adapter: ENXIO or EREMOTEIO).
        #expect(throws: SensorBusError.noDevice(bus: bus, address: absent)) {
            try i2c.readByteData(address: absent, command: 0)
        }
        // An SMBus-only adapter refuses I2C_RDWR with EOPNOTSUPP.
        #expect(throws: SensorBusError.invalidRequest(bus: bus, address: chip,
                                                      reason: "the adapter rejected the transaction (errno \(EOPNOTSUPP))")) {
            try i2c.transfer([.write(address: chip, bytes: [0]), .read(address: chip, count: 2)])
        }
        #expect(throws: SensorBusError.busMissing(bus: 99)) { try LinuxI2CBus(busNumber: 99) }
    }
}

enum KernelI2CStub {
    /// The bus number of the i2c-stub adapter, when the environment names one.
    static let bus: Int? = ProcessInfo.processInfo.environment["BLESENSOR_TEST_I2C_STUB_BUS"].flatMap { Int($0) }
}

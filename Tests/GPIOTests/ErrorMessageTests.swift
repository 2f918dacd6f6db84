#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Sensors

@Suite struct ErrorMessageTests {
    /// i2c-bcm2835 returns EREMOTEIO for every NACK, absent devices included: the message must not
    /// claim the address was acknowledged.
    @Test func remoteIOCoversAnyNack() {
        #expect(LinuxI2CBus.error(EREMOTEIO, bus: 1, address: 0x48) == .remoteIO(bus: 1, address: 0x48))
        #expect(SensorBusError.remoteIO(bus: 1, address: 0x48).description
            == "no acknowledge from 0x48 on i2c-1: wrong address, device not powered, or the device rejected the transfer "
            + "(check wiring and `i2cdetect -y 1`)")
    }

    @Test func busyAddressIsClaimedByAKernelDriver() {
        #expect(LinuxI2CBus.selectError(EBUSY, bus: 1, address: 0x48) == .addressClaimed(bus: 1, address: 0x48))
        #expect(LinuxI2CBus.selectError(ENXIO, bus: 1, address: 0x48) == .noDevice(bus: 1, address: 0x48))
        #expect(SensorBusError.addressClaimed(bus: 1, address: 0x48).description
            == "address 0x48 on i2c-1 is claimed by a kernel driver (a device-tree overlay?): unbind it or remove the overlay")
    }

    @Test func gpioRequestFailureNamesTheCause() {
        let busy = GPIOError.requestFailed(chip: "gpiochip0", offset: 17, errno: EBUSY).description
        #expect(busy.contains("in use by another process or a kernel driver"))
        #expect(!busy.contains("bias"))
        let invalid = GPIOError.requestFailed(chip: "gpiochip0", offset: 17, errno: EINVAL).description
        #expect(invalid.contains("bias"))
        let other = GPIOError.requestFailed(chip: "gpiochip0", offset: 17, errno: EACCES).description
        #expect(other.contains("Permission denied"), "\(other)")
        #expect(!other.contains("bias"))
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Sensors

/// The libgpiod shim as far as a machine without GPIO can check it, on whichever libgpiod the build
/// links (1.6 from the system, or 2.x through scripts/build-gpiod2.sh): the API compiled matches the
/// library loaded, chip lookups fail with typed errors, and errnos map to messages a user can act
/// on. Lines themselves are exercised against gpio-sim in the real-kernel VM tests.
@Suite struct LinuxGPIOShimTests {
    @Test func theCompiledAPIMatchesTheLoadedLibrary() throws {
        let (api, version) = LinuxGPIOChip.libgpiod
        #expect(api == 1 || api == 2)
        let major = try #require(Int(version.prefix { $0 != "." }), "libgpiod version '\(version)'")
        #expect(major == api, "compiled for the libgpiod \(api).x API but loaded libgpiod \(version)")
        // scripts/test-all.sh sets it for the 2.x build, so a build that silently fell back to the
        // system's 1.6 fails here.
        if let expected = ProcessInfo.processInfo.environment["BLESENSOR_EXPECT_LIBGPIOD_API"] {
            #expect(String(api) == expected, "expected the libgpiod \(expected).x API, built against \(version)")
        }
    }

    /// Every spelling libgpiod 1.6's lookup accepted (and the 2.x shim re-implements) reaches the
    /// same typed error when the chip is not there.
    @Test(arguments: ["gpiochip97", "97", "/dev/gpiochip97", "no-such-chip-label"])
    func aMissingChipIsChipNotFound(name: String) {
        #expect(throws: GPIOError.chipNotFound(name)) { try LinuxGPIOChip(name: name) }
    }

    /// /dev/null opens but is no GPIO chip: libgpiod refuses it (ENOTTY, ENODEV) rather than issuing
    /// GPIO ioctls to it.
    @Test func aCharacterDeviceThatIsNoGPIOChipIsRefused() {
        #expect(throws: GPIOError.chipNotFound("/dev/null")) { try LinuxGPIOChip(name: "/dev/null") }
    }

    @Test func openErrnosMapToTypedErrors() {
        #expect(LinuxGPIOChip.openError(EACCES, chip: "gpiochip0") == .permissionDenied("gpiochip0"))
        #expect(LinuxGPIOChip.openError(EPERM, chip: "gpiochip0") == .permissionDenied("gpiochip0"))
        for code in [ENOENT, ENOTTY, ENODEV, EIO] {
            #expect(LinuxGPIOChip.openError(code, chip: "gpiochip0") == .chipNotFound("gpiochip0"))
        }
        #expect(GPIOError.permissionDenied("gpiochip0").description.contains("gpio group"))
    }

    /// EBUSY names who holds the line when the kernel says (gpioinfo's "used by").
    @Test func aBusyLineNamesItsConsumer() {
        let busy = LinuxGPIOLine.requestError(EBUSY, chip: "gpiochip0", offset: 17, holder: "spi0 CS0")
        #expect(busy == .lineInUse(chip: "gpiochip0", offset: 17, consumer: "spi0 CS0"))
        #expect(busy.description.contains("in use by \"spi0 CS0\""), "\(busy)")
        #expect(busy.description.contains("gpioinfo gpiochip0"))
        let unnamed = GPIOError.lineInUse(chip: "gpiochip0", offset: 17, consumer: "").description
        #expect(unnamed.contains("a consumer that gave no name"), "\(unnamed)")
        // Freed again before we could ask: the errno's own message.
        let vanished = LinuxGPIOLine.requestError(EBUSY, chip: "gpiochip0", offset: 17, holder: nil)
        #expect(vanished == .requestFailed(chip: "gpiochip0", offset: 17, errno: EBUSY))
    }

    /// EINVAL (1.6 on a kernel without bias flags), ENOTSUPP (524, the kernel's internal code some
    /// drivers leak) and EOPNOTSUPP all mean the pull resistor cannot be set.
    @Test(arguments: [EINVAL, EOPNOTSUPP, 524])
    func unsupportedBiasIsExplained(code: Int32) {
        let error = LinuxGPIOLine.requestError(code, chip: "gpiochip0", offset: 17, holder: nil)
        #expect(error.description.contains("does not support the requested pull-up/pull-down bias"), "\(error)")
    }
}

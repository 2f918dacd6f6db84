/// Why an I2C transaction failed, phrased so a user knows what to check.
public enum SensorBusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nobody acknowledged the address (ENXIO, or a NACK reported by the simulated bus).
    case noDevice(bus: Int, address: UInt8)
    /// A NACK reported as EREMOTEIO. The Raspberry Pi's i2c-bcm2835 returns it for any NACK,
    /// including an absent device, so it does not prove the address was acknowledged.
    case remoteIO(bus: Int, address: UInt8)
    /// I2C_SLAVE refused the address (EBUSY): a kernel driver has bound it.
    case addressClaimed(bus: Int, address: UInt8)
    /// The adapter reported a generic I/O error (EIO), typically arbitration loss or a glitch.
    case ioError(bus: Int, address: UInt8)
    /// The transfer did not complete, usually SDA or SCL held low by a hung device (ETIMEDOUT).
    case timeout(bus: Int, address: UInt8)
    /// /dev/i2c-N does not exist.
    case busMissing(bus: Int)
    /// /dev/i2c-N exists but this process may not open it.
    case permissionDenied(bus: Int)
    /// The request itself was malformed (e.g. a block longer than SMBus allows).
    case invalidRequest(bus: Int, address: UInt8, reason: String)
    /// Any other errno from the kernel.
    case system(bus: Int, address: UInt8, errno: Int32)

    public var description: String {
        switch self {
        case let .noDevice(bus, address):
            return "no device answered at \(address.i2cHex) on i2c-\(bus): check wiring and address (i2cdetect -y \(bus))"
        case let .remoteIO(bus, address):
            return "no acknowledge from \(address.i2cHex) on i2c-\(bus): wrong address, device not powered, "
                + "or the device rejected the transfer (check wiring and `i2cdetect -y \(bus)`)"
        case let .addressClaimed(bus, address):
            return "address \(address.i2cHex) on i2c-\(bus) is claimed by a kernel driver (a device-tree overlay?): "
                + "unbind it or remove the overlay"
        case let .ioError(bus, address):
            return "I/O error talking to \(address.i2cHex) on i2c-\(bus): check pull-ups, cable length and power"
        case let .timeout(bus, address):
            return "i2c-\(bus) timed out talking to \(address.i2cHex): the bus looks stuck (a device holds SDA low); power-cycle the sensor"
        case let .busMissing(bus):
            return "/dev/i2c-\(bus) does not exist: enable I2C (raspi-config / dtparam=i2c_arm=on)"
        case let .permissionDenied(bus):
            return "permission denied opening /dev/i2c-\(bus): run as root or add the user to the i2c group"
        case let .invalidRequest(bus, address, reason):
            return "invalid request for \(address.i2cHex) on i2c-\(bus): \(reason)"
        case let .system(bus, address, code):
            return "i2c-\(bus) error \(code) talking to \(address.i2cHex)"
        }
    }
}

extension UInt8 {
    /// Addresses print as 0x48, the form i2cdetect and datasheets use.
    public var i2cHex: String {
        let digits = String(self, radix: 16)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }
}

import BridgeConfiguration

extension Examination {
    /// /dev/i2c-N for each bus a configured I2C sensor is on, and whether the service user may use it.
    mutating func checkI2C(_ configuration: BridgeConfiguration) {
        guard !configuration.board.simulated else { return }
        let buses = Set(configuration.sensors.filter(\.driver.usesI2C).compactMap(\.i2cBus)).sorted()
        for bus in buses {
            let path = "/dev/i2c-\(bus)"
            let users = configuration.sensors.filter { $0.driver.usesI2C && $0.i2cBus == bus }.map(\.name)
            guard let info = root.info(path) else {
                add(.i2c, .fail, path, "missing (needed by \(users.joined(separator: ", ")))\(presentBuses())",
                    fix: missingBusFix(bus, board: configuration.board))
                continue
            }
            guard info.kind == .characterDevice else {
                add(.i2c, .fail, path, "is a \(info.kind.rawValue), not the i2c-dev character device",
                    fix: "remove \(path) (something created it by mistake) and reboot, so the kernel creates the device")
                continue
            }
            add(serviceAccess(.i2c, path, info, need: .readWrite, usualGroup: "i2c",
                              what: #"/etc/udev/rules.d/60-i2c.rules: SUBSYSTEM=="i2c-dev", GROUP="i2c", MODE="0660""#))
        }
    }

    /// ` (present: /dev/i2c-20, /dev/i2c-21)`, so a wrong bus number is easy to see.
    private func presentBuses() -> String {
        let present = (root.list("/dev") ?? []).filter { $0.hasPrefix("i2c-") }
        return present.isEmpty ? "; there is no /dev/i2c-* at all" : "; present: " + present.map { "/dev/" + $0 }.joined(separator: ", ")
    }

    private func missingBusFix(_ bus: Int, board: BoardProfile) -> String {
        // The adapter is there but its character device is not: only i2c-dev is missing.
        if root.exists("/sys/class/i2c-adapter/i2c-\(bus)") {
            return "load the i2c-dev module: sudo modprobe i2c-dev, and add i2c-dev to /etc/modules so it loads at boot"
        }
        if isRaspberryPi(board), bus == 1 {
            return "enable I2C: sudo raspi-config nonint do_i2c 0 (or dtparam=i2c_arm=on in /boot/firmware/config.txt) and reboot"
        }
        if isRaspberryPi(board) {
            return "bus \(bus) is not the header's bus 1: enable the overlay that creates it in /boot/firmware/config.txt "
                + "(e.g. dtoverlay=i2c-gpio,bus=\(bus)) and reboot, or set the sensors' bus: to 1"
        }
        return "enable I2C bus \(bus) in the board's device tree and load i2c-dev (sudo modprobe i2c-dev); "
            + "ls /sys/class/i2c-adapter lists the buses the kernel has"
    }
}

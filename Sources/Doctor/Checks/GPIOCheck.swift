import BridgeConfiguration
import Sensors

extension Examination {
    /// With a GPIO sensor configured: the board's chips, the service user's access to them, and
    /// each configured line found by name (looked up, never requested: a running daemon holds it).
    mutating func checkGPIO(_ configuration: BridgeConfiguration) {
        let sensors = configuration.sensors.filter { $0.driver.descriptor.connection == .gpio }
        guard !configuration.board.simulated, !sensors.isEmpty else { return }
        let present = gpioChips(configuration.board)
        guard !present.isEmpty else {
            let wanted = configuration.board.gpioChips.isEmpty ? "/dev/gpiochip*" : configuration.board.gpioChips.joined(separator: ", ")
            add(.gpio, .fail, "GPIO chips", "none found (looked for \(wanted))",
                fix: "the GPIO character devices come with the board's kernel (ls /dev/gpiochip*); if they have other names, "
                + "set board-overrides: gpio-chips: [...] in the configuration")
            return
        }
        for chip in present {
            if let path = GPIOChipName.devicePath(chip), let info = root.info(path) {
                add(serviceAccess(.gpio, path, info, need: .readWrite, usualGroup: "gpio",
                                  what: #"/etc/udev/rules.d/60-gpio.rules: SUBSYSTEM=="gpio", GROUP="gpio", MODE="0660""#))
            }
        }
        for sensor in sensors {
            checkLine(sensor.gpioLine ?? "", of: sensor.name, on: present)
        }
    }

    /// The board's chips that exist, in the board's order; every /dev/gpiochip* when the board names none.
    /// A chip given by label cannot be seen in /dev and is left to libgpiod to find.
    private func gpioChips(_ board: BoardProfile) -> [String] {
        guard !board.gpioChips.isEmpty else {
            return (root.list("/dev") ?? []).filter { $0.hasPrefix("gpiochip") }
        }
        return board.gpioChips.filter { chip in
            guard let path = GPIOChipName.devicePath(chip) else { return true }
            return root.info(path)?.kind == .characterDevice
        }
    }

    private mutating func checkLine(_ line: String, of sensor: String, on chips: [String]) {
        let subject = "GPIO line \(line)"
        var denied: String?
        for chip in chips {
            switch environment.gpio.find(line: line, chip: chip) {
            case let .success(offset):
                add(.gpio, .ok, subject, "found on \(chip), offset \(offset) (sensor \(sensor))")
                return
            case .failure(.permissionDenied):
                denied = chip
            case .failure:
                continue
            }
        }
        if let denied {
            add(.gpio, .warn, subject, "not looked up: this user may not open \(denied) (sensor \(sensor))",
                fix: "run sudo blesensor doctor to check the line names")
            return
        }
        add(.gpio, .fail, subject, "not found on \(chips.joined(separator: ", ")) (sensor \(sensor))",
            fix: "list the lines with gpioinfo and set the sensor's line: to one of the names there (GPIO17 is header pin 11 on a Pi)")
    }
}

import BridgeConfiguration
import Sensors

extension Examination {
    /// With a DS18B20 configured: the w1 bus in sysfs and each configured device on it.
    mutating func checkOneWire(_ configuration: BridgeConfiguration) {
        let sensors = configuration.sensors.filter { $0.driver.descriptor.connection == .oneWire }
        guard !configuration.board.simulated, !sensors.isEmpty else { return }
        let directory = OneWireBus.defaultRoot
        guard let devices = root.list(directory) else {
            let fix = isRaspberryPi(configuration.board)
                ? "enable 1-Wire: add dtoverlay=w1-gpio to /boot/firmware/config.txt (data on GPIO4, header pin 7) and reboot"
                : "enable the kernel's 1-Wire bus master (the w1-gpio overlay on most boards) and load w1-therm"
            add(.oneWire, .fail, directory, "missing: the kernel has no 1-Wire bus", fix: fix)
            return
        }
        let thermometers = devices.filter { $0.hasPrefix("28-") }
        for sensor in sensors {
            if let id = sensor.oneWireID {
                if devices.contains(id) {
                    add(.oneWire, .ok, "\(directory)/\(id)", "present (sensor \(sensor.name))")
                } else {
                    let seen = thermometers.isEmpty ? "no DS18B20 (28-*) is on the bus" : "present: " + thermometers.joined(separator: ", ")
                    add(.oneWire, .fail, "\(directory)/\(id)", "missing (sensor \(sensor.name)); \(seen)",
                        fix: "check the wiring and the 4.7 kΩ pull-up between data and 3.3 V, and the id in the configuration (ls \(directory))")
                }
            } else if let first = thermometers.first {
                add(.oneWire, .ok, "\(directory)/\(first)", "present: the first DS18B20, used by sensor \(sensor.name)")
            } else {
                add(.oneWire, .fail, directory, "no DS18B20 (28-*) on the bus (sensor \(sensor.name))",
                    fix: "check the wiring and the 4.7 kΩ pull-up between data and 3.3 V")
            }
        }
    }
}

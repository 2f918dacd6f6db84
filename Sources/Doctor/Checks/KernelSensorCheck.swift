import BridgeConfiguration
import Sensors

extension Examination {
    /// With iio or hwmon sensors configured: the kernel device each one names, found by its `name`
    /// attribute as the daemon finds it, so a missing overlay or module shows before a read fails.
    mutating func checkKernelSensors(_ configuration: BridgeConfiguration) {
        guard !configuration.board.simulated else { return }
        for sensor in configuration.sensors {
            guard case let .kernel(kind) = sensor.driver.descriptor.connection else { continue }
            let device = sensor.device ?? ""
            let listing = KernelSensor.defaultRoot + kind.directory
            let reader = KernelSensor(kind: kind, device: device.hasPrefix("/") ? root.resolve(device) : device,
                                      root: root.resolve(KernelSensor.defaultRoot))
            let subject = "\(kind.rawValue) device \(device)"
            do {
                let directory = try reader.resolve()
                add(.kernelSensors, .ok, subject, "present: \(unrooted(directory)) (sensor \(sensor.name))")
            } catch {
                let fix = kind == .iio
                    ? "load the sensor's kernel driver: on a Pi add its overlay to /boot/firmware/config.txt (e.g. dtoverlay=dht11,gpiopin=4) "
                        + "and reboot; cat \(listing)/*/name lists the devices the kernel drives"
                    : "load the sensor's kernel driver (w1-therm for w1_slave_temp, or the chip's overlay); cat \(listing)/*/name lists them"
                add(.kernelSensors, .fail, subject, unrooted(error.description) + " (sensor \(sensor.name))", fix: fix)
            }
        }
    }

    /// A path inside a test root as the machine would show it.
    private func unrooted(_ text: String) -> String {
        root.path == "/" ? text : text.replacing(root.path, with: "")
    }
}

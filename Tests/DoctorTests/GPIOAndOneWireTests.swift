import Testing
@testable import Doctor

@Suite struct GPIOAndOneWireTests {
    static let pulseOnPi5 = """
        board: raspberry-pi-5
        sensors:
          - {name: strap, driver: gpio-pulse, line: GPIO17, publish: [heart-rate-measurement]}
        """

    @Test(.enabled(if: canMakeDevices, "device nodes need root"))
    func aLineIsFoundByNameOnWhicheverBoardChipExists() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.pulseOnPi5)
        // A kernel from 6.6.45 on: the header chip is gpiochip0 and there is no gpiochip4.
        try machine.device("/dev/gpiochip0", group: FakeMachine.gpioGID)
        let report = await machine.doctor(gpio: FakeGPIO(lines: ["gpiochip0": ["GPIO17": 17]])).report()
        #expect(report.check("/dev/gpiochip0")?.status == .ok)
        #expect(report.check("/dev/gpiochip4") == nil)
        #expect(report.check("GPIO line GPIO17")?.detail == "found on gpiochip0, offset 17 (sensor strap)")
        #expect(report.check("group gpio")?.status == .ok)
        #expect(report.check("group i2c") == nil)
    }

    @Test(.enabled(if: canMakeDevices, "device nodes need root"))
    func aLineNotOnAnyChipFailsWithGpioinfo() async throws {
        let machine = try FakeMachine(hardwareGroups: ["i2c"])
        machine.configuration(Self.pulseOnPi5)
        try machine.device("/dev/gpiochip0", group: FakeMachine.gpioGID)
        try machine.device("/dev/gpiochip4", group: FakeMachine.gpioGID)
        let report = await machine.doctor(gpio: FakeGPIO(lines: ["gpiochip0": ["GPIO4": 4]])).report()
        let line = try #require(report.check("GPIO line GPIO17"))
        #expect(line.status == .fail)
        #expect(line.detail == "not found on gpiochip0, gpiochip4 (sensor strap)")
        #expect(line.fix?.contains("gpioinfo") == true)
        #expect(report.check("/dev/gpiochip0")?.status == .fail)
        #expect(report.check("group gpio")?.fix == "sudo adduser blesensor gpio, then sudo systemctl restart blesensord")
    }

    @Test(.enabled(if: canMakeDevices, "device nodes need root"))
    func aChipThisUserCannotOpenLeavesTheLineUnchecked() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.pulseOnPi5)
        try machine.device("/dev/gpiochip0", group: FakeMachine.gpioGID)
        let report = await machine.doctor(gpio: FakeGPIO(denied: ["gpiochip0"])).report()
        #expect(report.check("GPIO line GPIO17")?.status == .warn)
        #expect(report.check("GPIO line GPIO17")?.fix == "run sudo blesensor doctor to check the line names")
    }

    @Test func noGPIOChipAtAllFails() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.pulseOnPi5)
        let report = await machine.doctor().report()
        #expect(report.check("GPIO chips")?.status == .fail)
        #expect(report.check("GPIO chips")?.detail == "none found (looked for gpiochip0, gpiochip4)")
    }

    @Test func oneWireWithoutTheOverlayFailsWithTheConfigTxtLine() async throws {
        let machine = try FakeMachine()
        machine.configuration("board: raspberry-pi-4b\nsensors: [{name: probe, driver: ds18b20, id: 28-0316a2795dff}]")
        let report = await machine.doctor().report()
        let bus = try #require(report.check("/sys/bus/w1/devices"))
        #expect(bus.status == .fail)
        #expect(bus.fix == "enable 1-Wire: add dtoverlay=w1-gpio to /boot/firmware/config.txt (data on GPIO4, header pin 7) and reboot")
        #expect(report.statuses(.i2c).isEmpty)
    }

    @Test func oneWireDevicesByIdOrTheFirstOne() async throws {
        let machine = try FakeMachine()
        machine.configuration("board: raspberry-pi-4b\nsensors: [{name: probe, driver: ds18b20, id: 28-0316a2795dff}, {name: any, driver: ds18b20}]")
        machine.directory("/sys/bus/w1/devices/28-00000a1b2c3d")
        machine.directory("/sys/bus/w1/devices/w1_bus_master1")
        let report = await machine.doctor().report()
        let missing = try #require(report.check("/sys/bus/w1/devices/28-0316a2795dff"))
        #expect(missing.status == .fail)
        #expect(missing.detail == "missing (sensor probe); present: 28-00000a1b2c3d")
        #expect(report.check("/sys/bus/w1/devices/28-00000a1b2c3d")?.status == .ok)
    }
}

/// iio / hwmon sensors: the device the kernel drives, found by name as the daemon finds it.
@Suite struct KernelSensorDoctorTests {
    @Test func aKernelDeviceIsFoundByNameOrFailsWithWhatIsThere() async throws {
        let machine = try FakeMachine()
        machine.configuration("""
            board: raspberry-pi-4b
            sensors:
              - {name: porch, driver: iio, device: dht11, publish: [es-temperature, humidity]}
              - {name: probe, driver: hwmon, device: w1_slave_temp}
            """)
        machine.write("/sys/bus/iio/devices/iio:device0/name", "mcp3008\n")
        machine.write("/sys/class/hwmon/hwmon0/name", "cpu_thermal\n")
        machine.write("/sys/class/hwmon/hwmon1/name", "w1_slave_temp\n")
        let report = await machine.doctor().report()
        let missing = try #require(report.check("iio device dht11"))
        #expect(missing.status == .fail)
        #expect(missing.detail.contains("no iio device is named 'dht11'") && missing.detail.contains("found: mcp3008"), "\(missing.detail)")
        #expect(missing.detail.hasSuffix("(sensor porch)"))
        #expect(missing.fix?.contains("dtoverlay=dht11,gpiopin=4") == true)
        let found = try #require(report.check("hwmon device w1_slave_temp"))
        #expect(found.status == .ok)
        #expect(found.detail == "present: /sys/class/hwmon/hwmon1 (sensor probe)")
    }
}

import BLECore
import BridgeConfiguration
import ControlSocket
import Foundation
import Testing
@testable import Doctor

/// Whole runs of the doctor on fake machines: the lines, their fixes and the exit status a user
/// who just installed the package would see.
@Suite struct InstallationScenarioTests {
    static let running = StatusSnapshot(
        transport: "hci:0", address: "C0:11:22:33:44:55 (random static)", advertising: true, uptimeSeconds: 307,
        board: "raspberry-pi-4b", deviceName: "blesensor", centrals: [],
        sensors: [FakeSensors.ok("body", driver: "tmp102", celsius: 36.81),
                  FakeSensors.ok("room", driver: "bme280", celsius: 21.5)])

    @Test(.enabled(if: canMakeDevices, "device nodes need root"))
    func aWorkingPiPassesEveryCheckAndReadsNoSensorWhileTheDaemonRuns() async throws {
        let machine = try FakeMachine.pi()
        let sensors = FakeSensors()
        let daemon = FakeDaemon(.success(Self.running))
        let report = await machine.doctor(daemon: daemon, systemd: FakeSystemd(), sensors: sensors).report()
        #expect(report.failedSubjects == [], "\(report.text)")
        #expect(report.exitStatus == 0)
        #expect(report.text.hasPrefix("ok    config /etc/blesensor/blesensor.yaml (board raspberry-pi-4b, 2 sensors)\n"))
        #expect(report.check("/dev/i2c-1")?.detail == "present (root:i2c rw-rw----; blesensor can read and write it)")
        #expect(report.check("group i2c")?.status == .ok)
        #expect(report.check("blesensord")?.detail.contains("transport hci:0, address C0:11:22:33:44:55 (random static), advertising, 0 centrals connected") == true)
        #expect(report.check("systemd blesensord")?.detail == "active, enabled")
        #expect(report.check("sensor body")?.detail == "(tmp102, from the daemon): 36.81 °C")
        #expect(report.check("sensor room")?.status == .ok)
        // The daemon holds the buses: nothing is read behind its back.
        #expect(sensors.reads.value.isEmpty)
        #expect(daemon.asked.value == [machine.path + "/run/blesensor/control.sock"])
        #expect(report.text.hasSuffix("\neverything checked is fine"))
    }

    @Test func aConfigurationHoldingThePasskeyThatEveryoneMayReadIsAWarning() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration + "\nsecurity:\n  io-capability: display-only\n  passkey: \"123456\"\n")
        let path = machine.path + ConfigurationLoader.defaultPath
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let exposed = try #require(await machine.doctor().report().check("passkey file"))
        #expect(exposed.status == .warn)
        #expect(exposed.detail.hasPrefix("\(path) holds the passkey and every user on this system may read it (mode 0644)"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        #expect(await machine.doctor().report().check("passkey file") == nil)
    }

    @Test func anMQTTPasswordFileThatEveryoneMayReadIsAWarning() async throws {
        let machine = try FakeMachine()
        let secret = machine.path + "/etc/blesensor/mqtt-password"
        machine.write("/etc/blesensor/mqtt-password", "s3cret\n")
        machine.configuration(FakeMachine.piConfiguration + "\nmqtt:\n  broker: mqtt://broker.lan\n  username: u\n  password-file: \(secret)\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret)
        let exposed = try #require(await machine.doctor().report().check("mqtt password file"))
        #expect(exposed.status == .warn)
        #expect(exposed.detail.hasPrefix("\(secret) holds the MQTT password and every user on this system may read it (mode 0644)"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: secret)
        #expect(await machine.doctor().report().check("mqtt password file") == nil)
    }

    @Test func aPiWithI2CDisabledFailsWithTheRaspiConfigFix() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        machine.directory("/sys/class/bluetooth/hci0")
        let sensors = FakeSensors([
            "body": FakeSensors.failed("body", driver: "tmp102", error: "/dev/i2c-1 does not exist: enable I2C (raspi-config / dtparam=i2c_arm=on)"),
        ])
        let report = await machine.doctor(sensors: sensors).report()
        let bus = try #require(report.check("/dev/i2c-1"))
        #expect(bus.status == .fail)
        #expect(bus.detail == "missing (needed by body, room); there is no /dev/i2c-* at all")
        #expect(bus.fix == "enable I2C: sudo raspi-config nonint do_i2c 0 (or dtparam=i2c_arm=on in /boot/firmware/config.txt) and reboot")
        #expect(report.text.contains("""
            FAIL  /dev/i2c-1 missing (needed by body, room); there is no /dev/i2c-* at all
                  fix: enable I2C: sudo raspi-config nonint do_i2c 0 (or dtparam=i2c_arm=on in /boot/firmware/config.txt) and reboot
            """))
        // No daemon: each sensor is read once through its driver, and the driver's message shown.
        #expect(sensors.reads.value == ["body", "room"])
        #expect(report.check("sensor body")?.status == .fail)
        #expect(report.check("sensor body")?.detail.contains("/dev/i2c-1 does not exist") == true)
        #expect(report.check("blesensord")?.fix == "sudo systemctl enable --now blesensord; its log: journalctl -u blesensord")
        #expect(report.exitStatus == 1)
    }

    @Test func anAdapterWithoutItsDeviceNeedsOnlyTheI2CDevModule() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        machine.directory("/sys/class/i2c-adapter/i2c-1")
        let report = await machine.doctor().report()
        #expect(report.check("/dev/i2c-1")?.fix?.hasPrefix("load the i2c-dev module: sudo modprobe i2c-dev") == true)
    }

    @Test func theServiceUserOutsideGroupI2CIsToldToJoinIt() async throws {
        let machine = try FakeMachine(hardwareGroups: ["gpio", "dialout"])
        machine.configuration(FakeMachine.piConfiguration)
        if canMakeDevices { try machine.device("/dev/i2c-1", group: FakeMachine.i2cGID) }
        let report = await machine.doctor().report()
        let group = try #require(report.check("group i2c"))
        #expect(group.status == .fail)
        #expect(group.detail == "blesensor is not a member, but needs /dev/i2c-1")
        #expect(group.fix == "sudo adduser blesensor i2c, then sudo systemctl restart blesensord")
        // Groups the configuration does not need are not asked for.
        #expect(report.check("group gpio") == nil)
        #expect(report.check("group dialout") == nil)
        if canMakeDevices {
            let device = try #require(report.check("/dev/i2c-1"))
            #expect(device.status == .fail)
            #expect(device.detail == "present (root:i2c rw-rw----) but blesensor cannot read and write it")
            #expect(device.fix == "sudo adduser blesensor i2c, then sudo systemctl restart blesensord")
        }
        #expect(report.exitStatus == 1)
    }

    @Test(.enabled(if: canMakeDevices, "device nodes need root"))
    func aRootOnlyDeviceGetsAUdevRuleNotAGroup() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        try machine.device("/dev/i2c-1", group: 0, mode: 0o600)
        let report = await machine.doctor().report()
        let device = try #require(report.check("/dev/i2c-1"))
        #expect(device.status == .fail)
        #expect(device.fix?.contains(#"SUBSYSTEM=="i2c-dev", GROUP="i2c", MODE="0660""#) == true)
    }

    @Test func aMissingAdapterListsTheOnesThereAre() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        let none = await machine.doctor().report()
        #expect(none.check("hci0")?.status == .fail)
        #expect(none.check("hci0")?.detail == "missing; the kernel has no Bluetooth adapter")
        #expect(none.check("hci0")?.fix?.contains("dtoverlay=disable-bt") == true)
        machine.directory("/sys/class/bluetooth/hci1")
        machine.directory("/sys/class/bluetooth/hci1:12")
        let other = await machine.doctor().report()
        #expect(other.check("hci0")?.detail == "missing; present: hci1")
        #expect(other.check("hci0")?.fix == "set transport: hci:N to one of those adapters")
    }

    @Test func aBrokenConfigurationListsEveryProblemWithItsLine() async throws {
        let machine = try FakeMachine()
        machine.configuration("""
            board: raspberry-pi-4b
            sensors:
              - name: body
                driver: tmp102
                address: 0x4g
                poll-intervall: 1s
            """)
        let sensors = FakeSensors()
        let report = await machine.doctor(sensors: sensors).report()
        let config = try #require(report.check("config"))
        #expect(config.status == .fail)
        #expect(config.detail == "/etc/blesensor/blesensor.yaml: 2 problems")
        #expect(config.notes.count == 2)
        #expect(config.notes[0].hasPrefix("sensors[0].address (line 5): "))
        #expect(config.notes[1].hasPrefix("sensors[0].poll-intervall (line 6): unknown key 'poll-intervall'; did you mean 'poll-interval'?"))
        #expect(config.fix?.contains("blesensor config check /etc/blesensor/blesensor.yaml") == true)
        #expect(report.text.contains("FAIL  config /etc/blesensor/blesensor.yaml: 2 problems\n      sensors[0].address (line 5): "))
        // Without a configuration nothing hardware-specific is checked, and no sensor is read.
        #expect(report.statuses(.i2c).isEmpty)
        #expect(report.check("sensors")?.status == .info)
        #expect(sensors.reads.value.isEmpty)
        #expect(report.check("user blesensor")?.status == .ok)
        #expect(report.exitStatus == 1)
    }

    /// `board: auto` reads the device tree of the machine being examined, not of the one running the tests.
    @Test func boardAutoIsResolvedFromTheExaminedMachinesDeviceTree() async throws {
        let machine = try FakeMachine()
        machine.configuration("board: auto\nsensors: [{name: cpu, driver: cpu-temp}]")
        machine.write("/proc/device-tree/model", "Raspberry Pi 400 Rev 1.0\u{0}")
        let report = await machine.doctor(daemon: FakeDaemon.stopped, systemd: FakeSystemd(), sensors: FakeSensors()).report()
        #expect(report.check("config")?.status == .ok, "\(report.text)")
        #expect(report.check("config")?.detail.contains("board raspberry-pi-4b") == true)

        machine.write("/proc/device-tree/model", "Some Other Board\u{0}")
        let unknown = await machine.doctor(daemon: FakeDaemon.stopped, systemd: FakeSystemd(), sensors: FakeSensors()).report()
        #expect(unknown.check("config")?.status == .fail)
        #expect(unknown.check("config")?.notes.joined().contains("Some Other Board") == true, "\(unknown.text)")
    }

    @Test func noInstalledConfigurationIsExplained() async throws {
        let machine = try FakeMachine()
        let report = await machine.doctor().report()
        let config = try #require(report.check("config"))
        #expect(config.status == .fail)
        #expect(config.detail.hasPrefix("no configuration installed: /etc/blesensor/blesensor.yaml does not exist"))
        #expect(config.fix?.hasPrefix("restore the package's file: sudo apt install --reinstall -o Dpkg::Options::=--force-confmiss blesensor") == true)
    }

    @Test func aMissingServiceUserFails() async throws {
        let machine = try FakeMachine()
        machine.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n")
        machine.configuration("board: simulated\nsensors: [{name: a, driver: tmp102}]")
        let report = await machine.doctor().report()
        #expect(report.check("user blesensor")?.status == .fail)
        #expect(report.check("user blesensor")?.fix?.contains("systemd-sysusers") == true)
    }

    @Test func aConfigurationWithoutGPIOOrOneWireSensorsChecksNeither() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        let report = await machine.doctor().report()
        #expect(report.statuses(.gpio).isEmpty)
        #expect(report.statuses(.oneWire).isEmpty)
    }

    @Test func aSimulatedBoardTouchesNoHardware() async throws {
        let machine = try FakeMachine()
        machine.configuration("board: simulated\nsensors: [{name: a, driver: tmp102}, {name: b, driver: gpio-pulse, line: GPIO17}, {name: c, driver: ds18b20}]")
        let report = await machine.doctor().report()
        #expect(report.statuses(.i2c).isEmpty)
        #expect(report.statuses(.gpio).isEmpty)
        #expect(report.statuses(.oneWire).isEmpty)
        #expect(report.check("bluetooth virtual")?.status == .info)
        #expect(report.checks.filter { $0.area == .accounts && $0.subject.hasPrefix("group") }.isEmpty)
    }
}

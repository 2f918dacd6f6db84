import BridgeConfiguration
import Testing
@testable import Doctor

/// The packaged unit's devices come from a generated drop-in: the doctor counts its
/// SupplementaryGroups= as the service's groups and says when it is older than the configuration.
@Suite struct DeviceAccessTests {
    static let dropIn = "/run/systemd/generator/blesensord.service.d/50-devices.conf"

    @Test(.enabled(if: canMakeDevices, "device nodes need root"))
    func dialoutGivenByTheGeneratedDropInOpensTheUART() async throws {
        let machine = try FakeMachine(hardwareGroups: ["dialout"])
        machine.configuration(BluetoothTests.piWithTransport("uart:/dev/ttyAMA0"))
        try machine.device("/dev/ttyAMA0", group: FakeMachine.dialoutGID)
        machine.write(Self.dropIn, "# generated\n[Service]\nDeviceAllow=char-ttyAMA rw\nSupplementaryGroups=dialout\n")
        let report = await machine.doctor().report()
        #expect(report.check("/dev/ttyAMA0")?.status == .ok)
        #expect(report.check("group dialout")?.status == .ok)
        #expect(report.check("group dialout")?.detail.contains("generated unit drop-in") == true)
        #expect(report.check("device access")?.status == .ok)
    }

    @Test func aDropInFromAnOlderConfigurationIsAWarningWithTheReload() async throws {
        let machine = try FakeMachine()
        machine.configuration("board: raspberry-pi-4b\ntransport: hci:0\nsensors: [{name: t, driver: tmp102, bus: 3}]")
        machine.write(Self.dropIn, "[Service]\nDeviceAllow=/dev/char/89:1 rw\n")
        let check = try #require(await machine.doctor().report().check("device access"))
        #expect(check.status == .warn)
        #expect(check.fix == "sudo systemctl daemon-reload && sudo systemctl restart blesensord")

        machine.write(Self.dropIn, "# from another path\n[Service]\nDeviceAllow=/dev/char/89:3 rw\n")
        let fresh = try #require(await machine.doctor().report().check("device access"))
        #expect(fresh.status == .ok && fresh.detail.contains("DeviceAllow=/dev/char/89:3 rw"))
    }

    @Test func withoutTheGeneratorNothingIsSaidAboutIt() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        #expect(await machine.doctor().report().check("device access") == nil)
    }

    @Test func theGeneratorWithoutItsDropInFails() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        machine.write("/lib/systemd/system-generators/blesensord-devices", "#!/bin/sh\n")
        let check = try #require(await machine.doctor().report().check("device access"))
        #expect(check.status == .fail && check.detail.contains("may open no sensor device"))
        #expect(check.fix?.hasPrefix("sudo systemctl daemon-reload") == true)
    }
}

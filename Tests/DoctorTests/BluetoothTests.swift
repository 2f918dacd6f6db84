#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HCITransports
import Testing
@testable import Doctor

@Suite struct BluetoothTests {
    static func piWithTransport(_ transport: String) -> String {
        "board: raspberry-pi-4b\ntransport: \(transport)\nsensors: [{name: cpu, driver: cpu-temp}]"
    }

    @Test func aSoftBlockedAdapterIsAWarningWithTheRfkillFix() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        machine.rfkill(adapter: 0, switch: 0, soft: true, hard: false)
        let check = try #require(await machine.doctor().report().check("hci0"))
        #expect(check.status == .warn)
        #expect(check.detail.hasPrefix("present but soft-blocked by rfkill0 (hci0, bluetooth): its radio is off until unblocked"))
        #expect(check.fix == "sudo rfkill unblock bluetooth; if it comes back, rfkill event shows what blocks it")
    }

    @Test func aHardBlockedAdapterFails() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        machine.rfkill(adapter: 0, switch: 3, soft: true, hard: true)
        let report = await machine.doctor().report()
        #expect(report.check("hci0")?.status == .fail)
        #expect(report.check("hci0")?.detail == "present but hard-blocked by rfkill3 (hci0, bluetooth): no software can switch its radio on")
        #expect(report.exitStatus == 1)
    }

    @Test func aMalformedRfkillFileIsReportedNotTrusted() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        machine.rfkill(adapter: 0, switch: 0, soft: false, hard: false)
        machine.write("/sys/class/bluetooth/hci0/rfkill0/soft", "yes\n")
        let check = try #require(await machine.doctor().report().check("hci0"))
        #expect(check.status == .warn)
        #expect(check.detail.contains("holds 'yes', not 0 or 1"))
    }

    @Test func upAndBluetoothdAreOnlyInformation() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        machine.rfkill(adapter: 0, switch: 0, soft: false, hard: false)
        machine.process(377, "bluetoothd")
        let report = await machine.doctor(hci: FakeHCICalls(up: .success(true))).report()
        #expect(report.check("hci0")?.status == .ok)
        #expect(report.check("hci0")?.detail == "present, not blocked by rfkill0 (hci0, bluetooth)")
        #expect(report.check("hci0 power")?.status == .info)
        #expect(report.check("hci0 power")?.detail.hasPrefix("up (") == true)
        #expect(report.check("bluetoothd")?.status == .info)
        #expect(report.statuses(.bluetooth).allSatisfy { $0 == .ok || $0 == .info })
    }

    @Test func aKernelWithoutBluetoothSocketsFails() async throws {
        let machine = try FakeMachine()
        machine.configuration(FakeMachine.piConfiguration)
        machine.directory("/sys/class/bluetooth/hci0")
        let report = await machine.doctor(hci: FakeHCICalls(socket: .failure(SystemErrno(EAFNOSUPPORT)))).report()
        #expect(report.check("hci0 power")?.status == .fail)
        #expect(report.check("hci0 power")?.fix?.contains("sudo modprobe bluetooth") == true)
    }

    @Test func autoWithoutAnAdapterFallsBackToTheVirtualController() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.piWithTransport("auto"))
        let check = try #require(await machine.doctor().report().check("bluetooth auto"))
        #expect(check.status == .warn)
        #expect(check.detail.contains("virtual controller"))
    }

    @Test func tcpAndVirtualTransportsAreNoted() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.piWithTransport("tcp:127.0.0.1:9000"))
        #expect(await machine.doctor().report().check("bluetooth tcp:127.0.0.1:9000")?.status == .info)
        machine.configuration(Self.piWithTransport("virtual"))
        let virtual = try #require(await machine.doctor().report().check("bluetooth virtual"))
        #expect(virtual.status == .warn)
        #expect(virtual.fix?.contains("hci:0") == true)
    }

    @Test func aMissingSerialControllerFails() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.piWithTransport("uart:/dev/ttyAMA0?baud=115200"))
        let report = await machine.doctor().report()
        #expect(report.check("/dev/ttyAMA0")?.status == .fail)
        #expect(report.check("/dev/ttyAMA0")?.detail == "missing (the uart: controller)")
        #expect(report.check("group dialout")?.status == .ok)
    }

    @Test(.enabled(if: canMakeDevices, "device nodes need root"))
    func aSerialControllerTheServiceUserCannotOpenNamesItsGroup() async throws {
        let machine = try FakeMachine(hardwareGroups: [])
        machine.configuration(Self.piWithTransport("uart:/dev/ttyAMA0"))
        try machine.device("/dev/ttyAMA0", group: FakeMachine.dialoutGID)
        let report = await machine.doctor().report()
        #expect(report.check("/dev/ttyAMA0")?.status == .fail)
        #expect(report.check("/dev/ttyAMA0")?.fix == "sudo adduser blesensor dialout, then sudo systemctl restart blesensord")
        #expect(report.check("group dialout")?.status == .fail)
    }
}

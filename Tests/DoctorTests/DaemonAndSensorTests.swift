import BLECore
import ControlSocket
import Foundation
import Testing
import TestSupport
@testable import Doctor

@Suite(.scaledTimeLimit(minutes: 1)) struct DaemonAndSensorTests {
    static let simulated = """
        board: simulated
        sensors:
          - {name: body, driver: tmp102, publish: [temperature-measurement]}
          - {name: room, driver: bme280, publish: [es-temperature, humidity, pressure]}
        """

    @Test func aRunningDaemonsSensorStatesAreReportedWithoutReadingTheBuses() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated + "\n  - {name: pulse, driver: max30102, publish: [heart-rate-measurement]}")
        let failed = FakeSensors.failed("room", driver: "bme280", error: "no acknowledge from 0x76 on i2c-1: check wiring")
        let starting = SensorStatus(name: "pulse", driver: "max30102", value: nil, unit: "bpm", ageSeconds: nil, state: .starting,
                                    error: nil, readings: [], reads: 0, failures: 0)
        let snapshot = StatusSnapshot(transport: "virtual", address: "C0:00:00:00:00:01 (random static)", advertising: true,
                                      uptimeSeconds: 3, board: "simulated", deviceName: "x", centrals: [],
                                      sensors: [FakeSensors.ok("body", driver: "tmp102", celsius: 36.8), failed, starting,
                                                FakeSensors.ok("attic", driver: "sht31", celsius: 12)])
        let sensors = FakeSensors()
        let report = await machine.doctor(daemon: FakeDaemon(.success(snapshot)), systemd: FakeSystemd(), sensors: sensors).report()
        #expect(sensors.reads.value.isEmpty)
        #expect(report.check("sensor body")?.status == .ok)
        let room = try #require(report.check("sensor room"))
        #expect(room.status == .fail)
        #expect(room.detail == "(bme280, from the daemon): failed: no acknowledge from 0x76 on i2c-1: check wiring (1 failed read)")
        #expect(room.fix?.contains("the daemon retries a failed sensor by itself") == true)
        #expect(report.check("sensor pulse")?.status == .info)
        #expect(report.check("sensor pulse")?.detail == "(max30102, from the daemon): not read yet")
        // A sensor the daemon serves but the file does not have: it runs another configuration.
        #expect(report.check("sensors")?.status == .warn)
        #expect(report.check("sensors")?.fix == "sudo systemctl restart blesensord to load the current file")
        #expect(report.exitStatus == 1)
    }

    @Test func aConfiguredSensorTheDaemonDoesNotHaveIsAWarning() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        let snapshot = StatusSnapshot(transport: "virtual", address: "a", advertising: true, uptimeSeconds: 3, board: "simulated",
                                      deviceName: "x", centrals: [], sensors: [FakeSensors.ok("body", driver: "tmp102", celsius: 36.8)])
        let report = await machine.doctor(daemon: FakeDaemon(.success(snapshot)), systemd: FakeSystemd()).report()
        #expect(report.check("sensor room")?.status == .warn)
        #expect(report.check("sensor room")?.detail == "not in the daemon's status: it runs another configuration")
    }

    @Test func whatTheControllerCannotDoIsShownAndMissingFirmwareIsAWarning() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        var snapshot = StatusSnapshot(transport: "hci:0", address: "a", advertising: true, uptimeSeconds: 3, board: "simulated",
                                      deviceName: "x", centrals: [], sensors: [FakeSensors.ok("body", driver: "tmp102", celsius: 36.8),
                                                                            FakeSensors.ok("room", driver: "bme280", celsius: 21)])
        snapshot.controllerLimitations = [
            .init(text: "this controller cannot advertise while connected: it serves one central at a time", needsAction: false),
            .init(text: "this Broadcom controller (subversion 0x2209) runs the firmware in its ROM (patch build 0000)", needsAction: true),
        ]
        let report = await machine.doctor(daemon: FakeDaemon(.success(snapshot)), systemd: FakeSystemd()).report()
        let lines = report.checks.filter { $0.subject == "controller" }
        #expect(lines.map(\.status) == [.info, .warn])
        #expect(lines[0].detail.hasPrefix("this controller cannot advertise while connected"))
        #expect(lines[1].fix?.contains("install the firmware") == true)
    }

    @Test func aStoppedDaemonHasEachSensorReadOnceThroughItsDriver() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        let sensors = FakeSensors(["room": FakeSensors.failed("room", driver: "bme280", error: "bme280: expected chip id 0x60 but found 0x58")])
        let report = await machine.doctor(sensors: sensors).report()
        #expect(sensors.reads.value == ["body", "room"])
        #expect(report.check("sensor body")?.detail == "(tmp102, read now): 21.50 °C")
        #expect(report.check("sensor room")?.status == .fail)
        #expect(report.check("sensor room")?.fix == "do what the message says, then run blesensor doctor again")
        #expect(report.check("blesensord")?.status == .fail)
        #expect(report.check("systemd blesensord")?.status == .fail)
        #expect(report.check("systemd blesensord")?.fix == "sudo systemctl enable --now blesensord; its log: journalctl -u blesensord")
    }

    @Test func aSensorThatDoesNotAnswerIsReportedAfterTheTimeoutInVirtualTime() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        let clock = ManualClock()
        let sensors = FakeSensors(blocking: true)
        let doctor = machine.doctor(sensors: sensors, clock: clock, options: DoctorOptions(sensorTimeout: .seconds(5)))
        let run = Task { await doctor.report() }
        // Each read's time limit is armed once its read started; the reads themselves never return.
        for _ in 0..<2 {
            await clock.waitForTimers(atLeast: 1)
            clock.advance(by: .seconds(5))
        }
        let report = await run.value
        sensors.unblock(2)
        let body = try #require(report.check("sensor body"))
        #expect(body.status == .fail)
        #expect(body.detail == "(tmp102) did not answer within 5 s (read now)")
        #expect(body.fix?.contains("power-cycle the sensor") == true)
        #expect(report.check("sensor room")?.status == .fail)
    }

    @Test func aDaemonStartedByHandAnswersWhileTheUnitIsInactive() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        let snapshot = StatusSnapshot(transport: "virtual", address: "a", advertising: true, uptimeSeconds: 3, board: "simulated",
                                      deviceName: "x", centrals: [], sensors: [])
        let report = await machine.doctor(daemon: FakeDaemon(.success(snapshot)), systemd: FakeSystemd.stopped).report()
        #expect(report.check("blesensord")?.status == .ok)
        #expect(report.check("systemd blesensord")?.status == .warn)
        #expect(report.check("systemd blesensord")?.detail == "inactive, enabled: the blesensord that answers was started by hand")
    }

    @Test(arguments: [
        (FakeSystemd(active: .state("failed"), enabled: .state("enabled")), CheckStatus.fail, "journalctl -u blesensord -b -n 50"),
        (FakeSystemd(active: .state("active"), enabled: .state("disabled")), CheckStatus.warn, "sudo systemctl enable blesensord"),
        (FakeSystemd(active: .state("inactive"), enabled: .state("masked")), CheckStatus.fail, "sudo systemctl unmask blesensord"),
        (FakeSystemd(active: .state("inactive"), enabled: .state("not-found")), CheckStatus.fail, "sudo apt install"),
        (FakeSystemd(active: .state("activating"), enabled: .state("enabled")), CheckStatus.warn, "check again in a few seconds"),
        (FakeSystemd(active: .unavailable(reason: "Failed to connect to bus"), enabled: .state("enabled")), CheckStatus.info, ""),
    ])
    func systemdsViewOfTheUnit(systemd: FakeSystemd, status: CheckStatus, fix: String) async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        let check = try #require(await machine.doctor(systemd: systemd).report().check("systemd blesensord"))
        #expect(check.status == status)
        #expect(fix.isEmpty ? check.fix == nil : check.fix?.contains(fix) == true)
    }

    @Test func withoutSystemdAsInitThereIsNoUnitToAskAbout() async throws {
        let machine = try FakeMachine()
        machine.remove("/run/systemd")
        machine.configuration(Self.simulated)
        let report = await machine.doctor(systemd: FakeSystemd()).report()
        #expect(report.check("systemd blesensord")?.status == .info)
        #expect(report.check("systemd blesensord")?.detail == "systemd is not running here: blesensord has to be started by hand")
    }

    @Test func aDaemonProcessWithoutItsSocketIsNotReadBehindItsBack() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        machine.process(412, "blesensord")
        let sensors = FakeSensors()
        let report = await machine.doctor(systemd: nil, sensors: sensors).report()
        #expect(report.check("blesensord")?.detail == "running, but not answering on /run/blesensor/control.sock")
        #expect(report.check("sensors")?.status == .info)
        #expect(sensors.reads.value.isEmpty)
    }

    @Test func aSocketThisUserMayNotOpenIsAWarningAndNoSensorIsRead() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        let sensors = FakeSensors()
        let report = await machine.doctor(daemon: FakeDaemon(.failure(.permissionDenied(path: "/run/blesensor/control.sock"))),
                                          sensors: sensors).report()
        #expect(report.check("blesensord")?.status == .warn)
        #expect(report.check("blesensord")?.fix?.contains("sudo blesensor doctor") == true)
        #expect(sensors.reads.value.isEmpty)
    }

    @Test func theSocketComesFromTheOptionThenTheConfiguration() async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated + "\npaths: {control-socket: /run/elsewhere.sock, state-directory: /var/lib/x}")
        let configured = FakeDaemon.stopped
        _ = await machine.doctor(daemon: configured).report()
        #expect(configured.asked.value == [machine.path + "/run/elsewhere.sock"])
        let explicit = FakeDaemon.stopped
        _ = await machine.doctor(daemon: explicit, options: DoctorOptions(socketPath: "/tmp/given.sock")).report()
        #expect(explicit.asked.value == [machine.path + "/tmp/given.sock"])
    }

    @Test(arguments: [
        (Invoker(uid: 0, gid: 0, sessionGroups: []), CheckStatus.ok, nil as String?),
        (Invoker(uid: FakeMachine.piUID, gid: FakeMachine.piUID, sessionGroups: [FakeMachine.blesensorGID]), .ok, nil),
        (Invoker(uid: FakeMachine.piUID, gid: FakeMachine.piUID, sessionGroups: []), .warn, "log out and in again (or run newgrp blesensor)"),
        (Invoker(uid: 1001, gid: 1001, sessionGroups: []), .warn, "sudo adduser $USER blesensor, then log in again"),
    ])
    func whetherTheInvokingUserCanReachTheControlSocket(invoker: Invoker, status: CheckStatus, fix: String?) async throws {
        let machine = try FakeMachine()
        machine.configuration(Self.simulated)
        let check = try #require(await machine.doctor(invoker: invoker).report().checks.first { $0.subject.hasPrefix("you (") })
        #expect(check.status == status)
        #expect(check.fix == fix)
    }
}

@Suite struct TestRootTests {
    @Test func underATestRootNoSensorIsReadThroughTheRealDevices() async throws {
        let machine = try FakeMachine()
        machine.configuration(DaemonAndSensorTests.simulated)
        let environment = DoctorEnvironment.system(root: machine.root, variables: [:], executablePath: "/nonexistent/blesensor")
        #expect(environment.sensors == nil)
        let report = await Doctor(options: DoctorOptions(), environment: environment).report()
        #expect(report.check("sensors")?.detail == "not read: the drivers open the real devices, not those under \(machine.path)")
        #expect(report.check("config")?.status == .ok)
    }
}

/// Each exporter in the daemon's status, whatever it is: failed is a problem.
@Suite struct ExportersCheckTests {
    @Test func eachExporterIsReportedAndAFailedOneIsAProblem() async throws {
        let machine = try FakeMachine()
        machine.configuration(DaemonAndSensorTests.simulated)
        let snapshot = StatusSnapshot(transport: "virtual", address: "a", advertising: true, uptimeSeconds: 3, board: "simulated",
                                      deviceName: "x", centrals: [],
                                      sensors: [FakeSensors.ok("body", driver: "tmp102", celsius: 36.8), FakeSensors.ok("room", driver: "bme280", celsius: 21)],
                                      exporters: [
                                          ExporterStatus(name: "mqtt", state: .failed, endpoint: "mqtt://broker:1883", sent: 3, dropped: 1,
                                                         lastError: "the broker refused the user name or password (not authorised)"),
                                          ExporterStatus(name: "metrics", state: .running, endpoint: "http://127.0.0.1:9870/metrics", sent: 7),
                                          ExporterStatus(name: "bthome", state: .connecting, endpoint: "service data 0xFCD2"),
                                      ])
        let report = await machine.doctor(daemon: FakeDaemon(.success(snapshot)), systemd: FakeSystemd()).report()
        let mqtt = try #require(report.check("exporter mqtt"))
        #expect(mqtt.status == .fail && mqtt.area == .exporters)
        #expect(mqtt.detail == "mqtt://broker:1883: failed, 3 sent, 1 dropped; last error: the broker refused the user name or password (not authorised)")
        #expect(mqtt.fix?.hasPrefix("do what the last error says") == true)
        #expect(report.check("exporter metrics")?.status == .ok)
        #expect(report.check("exporter bthome")?.status == .warn)
        #expect(report.exitStatus == 1)
    }

    @Test func aDaemonWithoutExportersHasNoExporterLine() async throws {
        let machine = try FakeMachine()
        machine.configuration(DaemonAndSensorTests.simulated)
        let snapshot = StatusSnapshot(transport: "virtual", address: "a", advertising: true, uptimeSeconds: 3, board: "simulated",
                                      deviceName: "x", centrals: [], sensors: [])
        let report = await machine.doctor(daemon: FakeDaemon(.success(snapshot)), systemd: FakeSystemd()).report()
        #expect(!report.checks.contains { $0.area == .exporters })
    }
}

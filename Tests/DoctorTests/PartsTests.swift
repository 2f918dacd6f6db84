#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECore
import BridgeConfiguration
import ChildProcesses
import ControlSocket
import Foundation
import Testing
import TestSupport
@testable import Doctor

@Suite(.scaledTimeLimit(minutes: 1)) struct PartsTests {
    @Test(arguments: [
        ("active\n", "", UnitAnswer.state("active")),
        ("  Failed \n", "", .state("failed")),
        ("not-found\n", "", .state("not-found")),
        ("", "System has not been booted with systemd as init system (PID 1). Can't operate.\nFailed to connect to bus\n",
         .unavailable(reason: "System has not been booted with systemd as init system (PID 1). Can't operate.")),
        ("", "", .unavailable(reason: "systemctl gave no answer")),
        ("\u{1B}[0;1;31mfailed\u{1B}[0m\n", "", .unavailable(reason: "systemctl gave no answer")),
        (String(repeating: "a", count: 100_000), "", .unavailable(reason: "systemctl gave no answer")),
    ])
    func systemctlAnswersParseWhateverTheyContain(output: String, error: String, expected: UnitAnswer) {
        #expect(UnitAnswer.parse(standardOutput: output, standardError: error) == expected)
    }

    @Test func accessFollowsTheKernelsOwnerGroupOtherRule() {
        let device = FileInfo(kind: .characterDevice, owner: 0, group: 998, mode: 0o660)
        #expect(ProcessIdentity(uid: 5, groups: [998]).may(.readWrite, device))
        #expect(!ProcessIdentity(uid: 5, groups: [997]).may(.read, device))
        #expect(ProcessIdentity(uid: 0, groups: []).may(.readWrite, FileInfo(kind: .regular, owner: 1, group: 1, mode: 0)))
        // The owner class applies even when "other" would allow more.
        #expect(!ProcessIdentity(uid: 7, groups: []).may(.read, FileInfo(kind: .regular, owner: 7, group: 1, mode: 0o066)))
        #expect(ProcessIdentity(uid: 8, groups: []).may(.read, FileInfo(kind: .regular, owner: 7, group: 1, mode: 0o004)))
        #expect(device.permissionText == "rw-rw----")
    }

    @Test func theRootViewReadsBoundedTextAndNeverHangsOnAFIFO() throws {
        let machine = try FakeMachine()
        machine.write("/sys/class/thing/attr", "1\n")
        #expect(machine.root.readLine("/sys/class/thing/attr") == "1")
        #expect(machine.root.readText("/sys/class/thing/attr", limit: 1) == "1")
        #expect(machine.root.readText("/nonexistent") == nil)
        #expect(machine.root.list("/nonexistent") == nil)
        #expect(machine.root.list("/sys/class") == ["thing"])
        #expect(mkfifo(machine.path + "/etc/fifo", 0o600) == 0)
        // Opened non-blocking: a FIFO with no writer reads as empty instead of waiting for one.
        #expect(machine.root.readText("/etc/fifo") == "")
        #expect(machine.root.info("/etc/fifo")?.kind == .fifo)
        #expect(SystemRoot(path: "/tmp/x/").resolve("/dev/i2c-1") == "/tmp/x/dev/i2c-1")
        #expect(SystemRoot.real.resolve("/dev/i2c-1") == "/dev/i2c-1")
    }

    @Test func theTextAndJSONForms() throws {
        let report = DoctorReport(checks: [
            DoctorCheck(.config, .ok, "config", "/etc/blesensor/blesensor.yaml (board raspberry-pi-4b, 3 sensors)"),
            DoctorCheck(.i2c, .fail, "/dev/i2c-1", "missing", fix: "enable I2C"),
            DoctorCheck(.config, .warn, "config", "x", fix: "y", notes: ["a (line 1): b"]),
        ])
        #expect(report.text == """
            ok    config /etc/blesensor/blesensor.yaml (board raspberry-pi-4b, 3 sensors)
            FAIL  /dev/i2c-1 missing
                  fix: enable I2C
            warn  config x
                  a (line 1): b
                  fix: y
            1 failed, 1 warning
            """)
        #expect(report.exitStatus == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        #expect(object["failures"] as? Int == 1)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count == 3)
        #expect(checks[0]["status"] as? String == "ok")
        #expect(checks[0]["fix"] is NSNull)
        #expect(checks[1]["subject"] as? String == "/dev/i2c-1")
        #expect(checks[1]["fix"] as? String == "enable I2C")
        #expect(checks[2]["notes"] as? [String] == ["a (line 1): b"])
        #expect(DoctorReport(checks: [DoctorCheck(.daemon, .info, "a", "b")]).exitStatus == 0)
    }

    @Test func aHelperIsRunAndItsOutputAndExitCodeCollected() async throws {
        let result = await DedicatedThread.run(name: "test") {
            ChildProcess.run("/bin/sh", arguments: ["-c", "echo active; echo oops >&2; exit 3"], environment: [:],
                             timeout: .seconds(30), clock: ManualClock())
        }
        #expect(try result.get() == ChildResult(exitCode: 3, standardOutput: "active\n", standardError: "oops\n"))
    }

    @Test func aMissingHelperIsReportedWithItsErrno() async throws {
        let missing = await DedicatedThread.run(name: "test") {
            ChildProcess.run("/nonexistent/systemctl", arguments: [], environment: [:], timeout: .seconds(30), clock: ManualClock())
        }
        #expect(missing == .failure(.couldNotStart(path: "/nonexistent/systemctl", errno: ENOENT)))
    }

    @Test func aHungHelperIsKilledAtItsTimeLimitInVirtualTime() async throws {
        let clock = ManualClock()
        let run = Task {
            await DedicatedThread.run(name: "test") {
                ChildProcess.run("/bin/sleep", arguments: ["600"], environment: [:], timeout: .seconds(5), clock: clock)
            }
        }
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(5))
        #expect(await run.value == .failure(.timedOut(path: "/bin/sleep", after: .seconds(5))))
    }

    @Test func theRealDriversReadTheSimulatedBoard() throws {
        let configuration = try ConfigurationLoader.load(yaml: """
            board: simulated
            sensors:
              - {name: room, driver: bme280, simulation: {celsius: 21.5, humidity: 45, pressure: 101325}}
              - {name: body, driver: tmp102, simulation: {celsius: 36.8, fail-after: 0s}}
            """, fileName: "t.yaml", boardsDirectories: [repositoryBoards], environment: [:]).get()
        let reader = DriverSensorReader()
        let room = reader.read(configuration.sensors[0], board: configuration.board)
        #expect(room.state == .ok)
        #expect(room.readings.map(\.quantity) == ["temperature", "humidity", "pressure"])
        #expect(SensorLineFormatter.measurement(room).hasPrefix("21.50 °C  45.0 %RH  1013"))
        let body = reader.read(configuration.sensors[1], board: configuration.board)
        #expect(body.state == .failed)
        #expect(body.error?.contains("i2c-1") == true)
    }
}

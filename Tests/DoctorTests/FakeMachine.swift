#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECore
import BridgeConfiguration
import ControlSocket
import Foundation
import HCITransports
import Sensors
@testable import Doctor

/// The package checkout, from this file's path: Tests/DoctorTests/FakeMachine.swift.
let repositoryBoards: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path + "/boards"
}()

/// Device nodes (mknod, chown) need root; tests that build /dev entries run only then.
let canMakeDevices = geteuid() == 0

/// A fake Raspberry Pi in a temporary directory: /etc/passwd and /etc/group with a blesensor user,
/// an installed configuration, /run/systemd/system, and whatever /dev and /sys entries a test adds.
/// Removed when released.
final class FakeMachine {
    static let blesensorUID: UInt32 = 998
    static let blesensorGID: UInt32 = 996
    static let i2cGID: UInt32 = 998
    static let gpioGID: UInt32 = 997
    static let dialoutGID: UInt32 = 20
    static let piUID: UInt32 = 1000

    let path: String
    var root: SystemRoot { SystemRoot(path: path) }

    /// `hardwareGroups`: the groups the blesensor user is in besides its own.
    init(hardwareGroups: [String] = ["i2c", "gpio", "dialout"], piInBlesensorGroup: Bool = true) throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/doctor-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        path = String(cString: made)
        write("/etc/passwd", """
            root:x:0:0:root:/root:/bin/bash
            blesensor:x:\(Self.blesensorUID):\(Self.blesensorGID):blesensor sensor bridge:/var/lib/blesensor:/usr/sbin/nologin
            pi:x:\(Self.piUID):\(Self.piUID):,,,:/home/pi:/bin/bash
            """)
        func members(_ group: String, _ extra: [String] = []) -> String {
            ((hardwareGroups.contains(group) ? ["blesensor"] : []) + extra).joined(separator: ",")
        }
        write("/etc/group", """
            root:x:0:
            dialout:x:\(Self.dialoutGID):\(members("dialout", ["pi"]))
            i2c:x:\(Self.i2cGID):\(members("i2c", ["pi"]))
            gpio:x:\(Self.gpioGID):\(members("gpio", ["pi"]))
            blesensor:x:\(Self.blesensorGID):\(piInBlesensorGroup ? "pi" : "")
            pi:x:\(Self.piUID):
            """)
        directory("/run/systemd/system")
        directory("/dev")
        directory("/proc")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ file: String, _ text: String) {
        directory((file as NSString).deletingLastPathComponent)
        _ = FileManager.default.createFile(atPath: path + file, contents: Data(text.utf8))
    }

    func directory(_ directory: String) {
        try? FileManager.default.createDirectory(atPath: path + directory, withIntermediateDirectories: true)
    }

    func remove(_ file: String) {
        try? FileManager.default.removeItem(atPath: path + file)
    }

    /// A character device node, as udev makes it (`crw-rw---- root i2c` by default).
    func device(_ file: String, group: UInt32, mode: mode_t = 0o660) throws {
        directory((file as NSString).deletingLastPathComponent)
        let full = path + file
        // Major 1, minor 3 (what /dev/null is): only the node's type, owner and mode are looked at.
        guard mknod(full, S_IFCHR | mode, dev_t(1 << 8 | 3)) == 0, chown(full, 0, group) == 0, chmod(full, mode) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// A process in /proc with this comm.
    func process(_ pid: Int, _ name: String) {
        write("/proc/\(pid)/comm", name + "\n")
    }

    /// The installed /etc/blesensor/blesensor.yaml.
    func configuration(_ yaml: String) {
        write(ConfigurationLoader.defaultPath, yaml)
    }

    static let piConfiguration = """
        board: raspberry-pi-4b
        sensors:
          - name: body
            driver: tmp102
            publish: [temperature-measurement]
          - name: room
            driver: bme280
            publish: [es-temperature, humidity, pressure]
        """

    /// A Pi 4 with I2C enabled, the installed configuration, hci0 present.
    static func pi(hardwareGroups: [String] = ["i2c", "gpio", "dialout"]) throws -> FakeMachine {
        let machine = try FakeMachine(hardwareGroups: hardwareGroups)
        machine.configuration(piConfiguration)
        try machine.device("/dev/i2c-1", group: i2cGID)
        machine.directory("/sys/class/i2c-adapter/i2c-1")
        machine.directory("/sys/class/bluetooth/hci0")
        return machine
    }
}

/// A daemon that answers (or fails) the same way every time, recording the sockets asked.
final class FakeDaemon: DaemonProbe {
    let answer: Result<StatusSnapshot, ControlClientError>
    let asked = Locked<[String]>([])

    init(_ answer: Result<StatusSnapshot, ControlClientError>) { self.answer = answer }

    static var stopped: FakeDaemon { FakeDaemon(.failure(.notRunning(path: "/run/blesensor/control.sock"))) }

    func status(socket: String) -> Result<StatusSnapshot, ControlClientError> {
        asked.withLock { $0.append(socket) }
        return answer
    }
}

struct FakeSystemd: ServiceManagerProbe {
    var active: UnitAnswer = .state("active")
    var enabled: UnitAnswer = .state("enabled")

    static let stopped = FakeSystemd(active: .state("inactive"), enabled: .state("enabled"))

    func query(_ query: UnitQuery, unit: String) -> UnitAnswer { query == .isActive ? active : enabled }
}

/// Sensor reads that must not happen (the daemon holds the buses), or that answer from a table,
/// or that block until released (a hung bus).
final class FakeSensors: SensorReader {
    let answers: [String: SensorStatus]
    let reads = Locked<[String]>([])
    let blocking: Bool
    private let release = DispatchSemaphore(value: 0)

    init(_ answers: [String: SensorStatus] = [:], blocking: Bool = false) {
        self.answers = answers
        self.blocking = blocking
    }

    func read(_ sensor: SensorConfiguration, board: BoardProfile) -> SensorStatus {
        reads.withLock { $0.append(sensor.name) }
        if blocking { release.wait() }
        return answers[sensor.name] ?? FakeSensors.ok(sensor.name, driver: sensor.driver.rawValue, celsius: 21.5)
    }

    func unblock(_ count: Int) { for _ in 0..<count { release.signal() } }

    static func ok(_ name: String, driver: String, celsius: Double) -> SensorStatus {
        SensorStatus(name: name, driver: driver, value: celsius, unit: "°C", ageSeconds: 0, state: .ok, error: nil,
                     readings: [QuantityReading(quantity: "temperature", value: celsius, unit: "°C")], reads: 1, failures: 0)
    }

    static func failed(_ name: String, driver: String, error: String) -> SensorStatus {
        SensorStatus(name: name, driver: driver, value: nil, unit: "°C", ageSeconds: nil, state: .failed, error: error,
                     readings: [], reads: 0, failures: 1)
    }
}

struct FakeGPIO: GPIOLineFinder {
    /// chip → line name → offset.
    var lines: [String: [String: Int]] = [:]
    var denied: Set<String> = []

    func find(line: String, chip: String) -> Result<Int, GPIOError> {
        if denied.contains(chip) { return .failure(.permissionDenied(chip)) }
        guard let offset = lines[chip]?[line] else { return .failure(.lineNotFound(chip: chip, line: line)) }
        return .success(offset)
    }
}

/// The HCI socket as far as the doctor uses it: whether an adapter is up. It never takes one.
struct FakeHCICalls: HCISystemCalls {
    var up: Result<Bool, SystemErrno> = .success(false)
    var socket: Result<Int32, SystemErrno> = .success(100)

    func openSocket() -> Result<Int32, SystemErrno> { socket }
    func isUp(_ socket: Int32, index: UInt16) -> Result<Bool, SystemErrno> { up }
    func powerDown(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno> { .failure(SystemErrno(EPERM)) }
    func bindUserChannel(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno> { .failure(SystemErrno(EPERM)) }
    func close(_ descriptor: Int32) {}
    func unblockRfkill(index: UInt32) -> Result<Void, SystemErrno> { .failure(SystemErrno(EPERM)) }
}

extension FakeMachine {
    /// hciN's rfkill switch as sysfs shows it.
    func rfkill(adapter: Int, switch index: Int, soft: Bool, hard: Bool) {
        let directory = "/sys/class/bluetooth/hci\(adapter)/rfkill\(index)"
        write(directory + "/name", "hci\(adapter)\n")
        write(directory + "/type", "bluetooth\n")
        write(directory + "/soft", soft ? "1\n" : "0\n")
        write(directory + "/hard", hard ? "1\n" : "0\n")
    }

    /// The doctor on this machine, run by `invoker` (pi, in groups pi and blesensor, by default).
    func doctor(daemon: any DaemonProbe = FakeDaemon.stopped, systemd: (any ServiceManagerProbe)? = FakeSystemd.stopped,
                sensors: any SensorReader = FakeSensors(), gpio: any GPIOLineFinder = FakeGPIO(), hci: FakeHCICalls = FakeHCICalls(),
                invoker: Invoker = Invoker(uid: FakeMachine.piUID, gid: FakeMachine.piUID, sessionGroups: [FakeMachine.blesensorGID]),
                clock: any HostClock = ManualClock(), options: DoctorOptions = DoctorOptions()) -> Doctor {
        Doctor(options: options, environment: DoctorEnvironment(
            root: root, invoker: invoker, variables: [:], boardsDirectories: [repositoryBoards],
            daemon: daemon, services: systemd, sensors: sensors, gpio: gpio, hciCalls: hci, clock: clock))
    }
}

extension DoctorReport {
    func check(_ subject: String) -> DoctorCheck? { checks.first { $0.subject == subject } }
    func statuses(_ area: CheckArea) -> [CheckStatus] { checks.filter { $0.area == area }.map(\.status) }
    var failedSubjects: [String] { checks.filter { $0.status == .fail }.map(\.subject) }
}

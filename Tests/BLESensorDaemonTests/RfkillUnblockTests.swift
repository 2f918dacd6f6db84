import BLESensorDaemon
import Foundation
import Glibc
import HCITransports
import Synchronization
import Testing

/// The unit's root pre-start step, on a sysfs copy and a /dev/rfkill that records what is written.
@Suite struct RfkillUnblockTests {
    /// Only the rfkill write matters here; the HCI calls are never made by this step.
    final class RecordingCalls: HCISystemCalls, Sendable {
        let unblocked = Mutex<[UInt32]>([])
        let answer: Result<Void, SystemErrno>
        init(answer: Result<Void, SystemErrno> = .success(())) { self.answer = answer }

        func openSocket() -> Result<Int32, SystemErrno> { .failure(SystemErrno(ENOSYS)) }
        func isUp(_ socket: Int32, index: UInt16) -> Result<Bool, SystemErrno> { .failure(SystemErrno(ENOSYS)) }
        func powerDown(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno> { .failure(SystemErrno(ENOSYS)) }
        func bindUserChannel(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno> { .failure(SystemErrno(ENOSYS)) }
        func close(_ descriptor: Int32) {}
        func unblockRfkill(index: UInt32) -> Result<Void, SystemErrno> {
            unblocked.withLock { $0.append(index) }
            return answer
        }
    }

    /// `/class/bluetooth/hci0/rfkill4` with the given state, under a temporary root.
    final class Tree: @unchecked Sendable {
        let root: String
        init(soft: Bool?, hard: Bool = false) {
            root = NSTemporaryDirectory() + "rfkill-\(UUID().uuidString)"
            let adapter = root + "/class/bluetooth/hci0"
            try? FileManager.default.createDirectory(atPath: adapter, withIntermediateDirectories: true)
            guard let soft else { return }
            let directory = adapter + "/rfkill4"
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, value) in [("name", "hci0"), ("type", "bluetooth"), ("soft", soft ? "1" : "0"), ("hard", hard ? "1" : "0")] {
                _ = FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: Data((value + "\n").utf8))
            }
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    static func state(_ soft: Bool, _ hard: Bool) -> RfkillSwitch {
        RfkillSwitch(index: 4, name: "hci0", type: "bluetooth", softBlocked: soft, hardBlocked: hard)
    }

    @Test func aSoftBlockOnTheConfiguredAdapterIsCleared() async {
        let tree = Tree(soft: true)
        let calls = RecordingCalls()
        let outcome = await RfkillUnblock.run(transport: "hci:0", probe: BluetoothAdapterProbe(sysfsRoot: tree.root, calls: calls))
        #expect(outcome == .unblocked("hci0", Self.state(true, false)))
        #expect(outcome.description == "hci0 was soft-blocked: unblocked rfkill4 (hci0, bluetooth)")
        #expect(outcome.exitCode == 0)
        #expect(calls.unblocked.withLock { $0 } == [4])
    }

    @Test func nothingIsWrittenWhenThereIsNothingToClear() async {
        for (tree, expected) in [(Tree(soft: false), RfkillUnblock.Outcome.notBlocked("hci0", Self.state(false, false))),
                                 (Tree(soft: nil), .noSwitch("hci0")),
                                 (Tree(soft: true, hard: true), .hardBlocked("hci0", Self.state(true, true)))] {
            let calls = RecordingCalls()
            let outcome = await RfkillUnblock.run(transport: "auto", probe: BluetoothAdapterProbe(sysfsRoot: tree.root, calls: calls))
            #expect(outcome == expected)
            #expect(outcome.exitCode == 0)
            #expect(calls.unblocked.withLock { $0 }.isEmpty)
        }
        let calls = RecordingCalls()
        let tree = Tree(soft: true)
        #expect(await RfkillUnblock.run(transport: "hci:1", probe: BluetoothAdapterProbe(sysfsRoot: tree.root, calls: calls)) == .adapterMissing("hci1"))
        for transport in ["virtual", "tcp:127.0.0.1:9000", "uart:/dev/ttyAMA0"] {
            #expect(await RfkillUnblock.run(transport: transport, probe: BluetoothAdapterProbe(sysfsRoot: tree.root, calls: calls)) == .noLocalAdapter(transport: transport))
        }
        #expect(calls.unblocked.withLock { $0 }.isEmpty)
    }

    @Test func aRefusedWriteFailsTheStepWithTheCommandToRun() async {
        let tree = Tree(soft: true)
        let outcome = await RfkillUnblock.run(transport: "hci:0", probe: BluetoothAdapterProbe(sysfsRoot: tree.root, calls: RecordingCalls(answer: .failure(SystemErrno(EACCES)))))
        #expect(outcome.exitCode == 1)
        #expect(outcome.description.contains("/dev/rfkill: Permission denied (errno \(EACCES)); run `sudo rfkill unblock bluetooth`"))
    }
}

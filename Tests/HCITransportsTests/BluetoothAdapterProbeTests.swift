import Glibc
import Testing

@testable import HCITransports

@Suite struct BluetoothAdapterProbeTests {
    @Test func listsAdaptersByIndexAndSkipsConnectionsAndStrays() throws {
        let tree = SysfsTree()
        for index in [10, 1, 0] { tree.addAdapter(index) }
        // Connections appear beside the adapters; other names are not adapters either.
        for stray in ["hci0:12", "hci", "hcix", "hci99999", "rfkill0"] { tree.makeDirectory("\(tree.bluetooth)/\(stray)") }
        let probe = BluetoothAdapterProbe(sysfsRoot: tree.root, calls: FakeHCISystemCalls())
        #expect(try probe.adapters().map(\.name) == ["hci0", "hci1", "hci10"])
        #expect(try probe.exists(1))
        #expect(try !probe.exists(2))
    }

    @Test func aKernelWithoutBluetoothHasNoAdapters() throws {
        let tree = SysfsTree()
        let probe = BluetoothAdapterProbe(sysfsRoot: tree.root + "/", calls: FakeHCISystemCalls())
        #expect(try probe.adapters().isEmpty)
    }

    @Test func readsTheAdaptersRfkillSwitch() throws {
        let tree = SysfsTree()
        tree.addAdapter(0, rfkill: (index: 3, soft: true, hard: false))
        tree.addAdapter(1)
        let probe = BluetoothAdapterProbe(sysfsRoot: tree.root, calls: FakeHCISystemCalls())
        let state = try #require(try probe.rfkillState(of: 0))
        #expect(state == RfkillSwitch(index: 3, name: "hci0", type: "bluetooth", softBlocked: true, hardBlocked: false))
        #expect(state.isBlocked)
        #expect(state.label == "rfkill3 (hci0, bluetooth)")
        #expect(try probe.rfkillState(of: 1) == nil)
        #expect(throws: AdapterProbeError.noSuchAdapter("hci2")) { try probe.rfkillState(of: 2) }
    }

    @Test func malformedOrMissingSwitchFilesAreErrorsNotTraps() throws {
        let tree = SysfsTree()
        tree.addAdapter(0, rfkill: (index: 0, soft: false, hard: false))
        let switchDirectory = "\(tree.bluetooth)/hci0/rfkill0"
        let probe = BluetoothAdapterProbe(sysfsRoot: tree.root, calls: FakeHCISystemCalls())

        tree.write(switchDirectory + "/soft", "2\n")
        #expect(throws: AdapterProbeError.malformed(path: switchDirectory + "/soft", content: "2", expected: "0 or 1")) {
            try probe.rfkillState(of: 0)
        }
        // Longer than any attribute: cut at the limit, then refused by the parser.
        tree.write(switchDirectory + "/soft", String(repeating: "1", count: 10_000))
        #expect(throws: AdapterProbeError.self) { try probe.rfkillState(of: 0) }
        tree.write(switchDirectory + "/soft", bytes: [0xFF, 0x00, 0xC3])
        #expect(throws: AdapterProbeError.self) { try probe.rfkillState(of: 0) }
        tree.remove(switchDirectory + "/soft")
        #expect(throws: AdapterProbeError.unreadable(path: switchDirectory + "/soft", SystemErrno(ENOENT))) {
            try probe.rfkillState(of: 0)
        }
        // name and type only describe the switch: missing or odd text is shown, not fatal.
        tree.write(switchDirectory + "/soft", "1\n")
        tree.remove(switchDirectory + "/name")
        tree.write(switchDirectory + "/type", bytes: [0x62, 0x74, 0x07, 0x0A])
        #expect(try probe.rfkillState(of: 0) == RfkillSwitch(index: 0, name: "", type: "bt", softBlocked: true, hardBlocked: false))

        let error = AdapterProbeError.malformed(path: "/sys/x", content: String(repeating: "y", count: 100), expected: "0 or 1")
        #expect(error.description.contains("'\(String(repeating: "y", count: 40))…'"))
    }

    @Test func isUpAsksTheKernelAndClosesItsSocket() throws {
        let calls = FakeHCISystemCalls(.init(isUp: [.success(true)]))
        let probe = BluetoothAdapterProbe(calls: calls)
        #expect(try probe.isUp(0))
        #expect(calls.calls == [.socket, .isUp(0), .close(100)])
    }

    @Test func isUpSaysWhatIsMissing() {
        let noBluetooth = BluetoothAdapterProbe(calls: FakeHCISystemCalls(.init(socket: [.failure(SystemErrno(EAFNOSUPPORT))])))
        #expect(throws: AdapterProbeError.bluetoothUnsupported(SystemErrno(EAFNOSUPPORT))) { try noBluetooth.isUp(0) }
        #expect(AdapterProbeError.bluetoothUnsupported(SystemErrno(EAFNOSUPPORT)).description.contains("sudo modprobe bluetooth"))

        let calls = FakeHCISystemCalls(.init(isUp: [.failure(SystemErrno(ENODEV))]))
        #expect(throws: AdapterProbeError.noSuchAdapter("hci3")) { try BluetoothAdapterProbe(calls: calls).isUp(3) }
        #expect(calls.calls == [.socket, .isUp(3), .close(100)])
    }
}

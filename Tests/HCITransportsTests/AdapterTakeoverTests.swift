import BLECore
import Glibc
import HCI
import Logging
import Testing

@testable import HCITransports

/// Every decision of taking an adapter for the user channel, on scripted system calls and a sysfs
/// copy (this machine's kernel has no Bluetooth). Back-offs run on a `ManualClock`.
@Suite struct AdapterTakeoverTests {
    /// A transport on fakes. A successful bind hands the transport one end of a real socket pair,
    /// so the event loop it builds on the descriptor is real.
    final class Rig: Sendable {
        let tree = SysfsTree()
        let clock = ManualClock()
        let calls: FakeHCISystemCalls
        let transport: HCIUserChannelTransport
        let log: CapturingLogHandler.Store
        private let peer: Int32

        /// `rfkill` is hciN's switch; `unblockClears` makes a successful unblock clear its `soft` file.
        init(_ script: FakeHCISystemCalls.Script = .init(), index: UInt16 = 0, adapters: [Int] = [0],
             rfkill: (index: Int, soft: Bool, hard: Bool)? = nil, unblockClears: Bool = false) {
            var fds: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
            peer = fds[1]
            var script = script
            script.socket = script.socket.map { result in result.map { _ in fds[0] } }
            for adapter in adapters { tree.addAdapter(adapter, rfkill: adapter == Int(index) ? rfkill : nil) }
            if unblockClears {
                let tree = tree
                script.onUnblock = { rfkillIndex in tree.write("\(tree.bluetooth)/hci\(index)/rfkill\(rfkillIndex)/soft", "0\n") }
            }
            calls = FakeHCISystemCalls(script)
            var options = TransportOptions()
            options.clock = clock
            let (logger, store) = CapturingLogHandler.logger()
            log = store
            transport = HCIUserChannelTransport(index: index, logger: logger, options: options,
                                                probe: BluetoothAdapterProbe(sysfsRoot: tree.root, calls: calls))
        }

        deinit {
            transport.close()
            Glibc.close(peer)
        }

        func open() async throws(HCITransportError) {
            try await transport.open { _ in }
        }

        /// Opens; the error, or nil when it opened.
        func openOutcome() async -> HCITransportError? {
            do throws(HCITransportError) {
                try await open()
                return nil
            } catch { return error }
        }

        /// Opens and returns the error; records an issue when the open succeeds.
        func openError() async -> HCITransportError? {
            let error = await openOutcome()
            if error == nil { Issue.record("the open unexpectedly succeeded") }
            return error
        }

        /// Lets the takeover's back-offs run out while it keeps failing.
        func runOutBackoffs() async {
            for _ in 1..<AdapterTakeover.maxAttempts {
                await clock.waitForTimers(atLeast: 1)
                if let deadline = clock.nextDeadline { clock.advance(to: deadline) }
            }
        }

        var closedSockets: Int { calls.calls.count { if case .close = $0 { return true }; return false } }
    }

    static let rfkillError = SystemErrno(SystemErrno.rfkill)

    @Test func anAdapterThatIsUpIsPoweredDownThenBound() async throws {
        let rig = Rig(.init(isUp: [.success(true)]))
        try await rig.open()
        #expect(rig.calls.calls == [.socket, .isUp(0), .powerDown(0), .bind(0)])
        #expect(rig.log.messages(at: .info).contains { $0.contains("hci0 is up") && $0.contains("powering it down") })
        #expect(rig.log.messages(at: .info).contains("opened HCI user channel on hci0"))
    }

    @Test func anAdapterThatIsDownIsBoundAtOnce() async throws {
        let rig = Rig()
        try await rig.open()
        #expect(rig.calls.calls == [.socket, .isUp(0), .bind(0)])
    }

    @Test func bluetoothdPoweringItUpOnceCostsOneBackoff() async throws {
        let rig = Rig(.init(isUp: [.success(true)], bind: [.failure(SystemErrno(EBUSY)), .success(())]))
        let start = rig.clock.now
        let opening = Task { await rig.openOutcome() }
        await rig.clock.waitForTimers(atLeast: 1)
        rig.clock.advance(by: AdapterTakeover.firstBackoff)
        #expect(await opening.value == nil)
        #expect(rig.calls.calls.filter { $0.closedDescriptor == nil } ==
                [.socket, .isUp(0), .powerDown(0), .bind(0), .socket, .isUp(0), .powerDown(0), .bind(0)])
        #expect(rig.closedSockets == 1)
        #expect(rig.clock.now - start == .milliseconds(100))
    }

    @Test func anAdapterPoweredUpForeverFailsAfterBoundedAttemptsInVirtualTime() async throws {
        let rig = Rig(.init(isUp: [.success(true)], bind: [.failure(SystemErrno(EBUSY))]))
        let start = rig.clock.now
        let opening = Task { await rig.openError() }
        await rig.runOutBackoffs()
        let error = await opening.value
        guard case let .adapterBusy(device, hint) = error else {
            Issue.record("expected adapterBusy, got \(String(describing: error))")
            return
        }
        #expect(device == "hci0")
        #expect(hint.contains("powered up again each time it was powered down (6 attempts in 2.5 s)"))
        #expect(error?.description.contains("hci0 is busy: it was powered up again") == true)
        #expect(hint.contains("usually by bluetoothd: stop it with `sudo systemctl stop bluetooth`"))
        #expect(rig.calls.calls.count { $0 == .bind(0) } == AdapterTakeover.maxAttempts)
        #expect(rig.clock.now - start == .milliseconds(2500))
        #expect(rig.closedSockets == AdapterTakeover.maxAttempts)
    }

    @Test func aKernelThatStaysBusyWithoutBeingUpIsNotBlamedOnBluetoothd() async throws {
        let rig = Rig(.init(bind: [.failure(SystemErrno(EBUSY))]))
        let opening = Task { await rig.openError() }
        await rig.runOutBackoffs()
        guard case let .adapterBusy(_, hint) = await opening.value else {
            Issue.record("expected adapterBusy")
            return
        }
        #expect(hint.contains("the kernel kept it busy (6 attempts in 2.5 s)"))
        #expect(hint.contains("dmesg | grep -i bluetooth"))
        // A Realtek adapter whose setup failed stays busy for good; the hint names its firmware.
        #expect(hint.contains("rtl_bt") && hint.contains("firmware-realtek"))
    }

    @Test func closingDuringABackoffAbandonsTheOpen() async throws {
        let rig = Rig(.init(isUp: [.success(true)], bind: [.failure(SystemErrno(EBUSY))]))
        let opening = Task { await rig.openError() }
        await rig.clock.waitForTimers(atLeast: 1)
        rig.transport.close()
        rig.clock.advance(by: AdapterTakeover.firstBackoff)
        #expect(await opening.value == .cancelled("opening hci0"))
        #expect(rig.calls.calls.count { $0 == .bind(0) } == 1)
    }

    @Test func powerDownWithoutTheCapabilitySaysWhichAndHowToGrantIt() async {
        let rig = Rig(.init(isUp: [.success(true)], powerDown: [.failure(SystemErrno(EPERM))]))
        guard case let .permissionDenied(device, hint) = await rig.openError() else {
            Issue.record("expected permissionDenied")
            return
        }
        #expect(device == "hci0")
        #expect(hint.contains("powering it down needs CAP_NET_ADMIN, which this process lacks"))
        #expect(hint.contains("sudo setcap cap_net_admin,cap_net_raw+ep"))
        #expect(hint.contains("AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW"))
        #expect(hint.contains("sudo btmgmt --index 0 power off"))
        #expect(!rig.calls.calls.contains(.bind(0)))
        #expect(rig.closedSockets == 1)
    }

    @Test func anotherUserChannelHolderIsNamed() async {
        // HCIDEVDOWN refuses with EBUSY while a user channel is bound; a bind then says EUSERS.
        for script in [FakeHCISystemCalls.Script(isUp: [.success(true)], powerDown: [.failure(SystemErrno(EBUSY))]),
                       FakeHCISystemCalls.Script(bind: [.failure(SystemErrno(EUSERS))])] {
            let rig = Rig(script)
            guard case let .adapterBusy(device, hint) = await rig.openError() else {
                Issue.record("expected adapterBusy")
                continue
            }
            #expect(device == "hci0")
            #expect(hint.contains("another program has its HCI user channel"))
        }
    }

    @Test func aSoftBlockIsClearedAndTheBindRetried() async throws {
        let rig = Rig(.init(bind: [.failure(Self.rfkillError), .success(())]),
                      rfkill: (index: 2, soft: true, hard: false), unblockClears: true)
        try await rig.open()
        #expect(rig.calls.calls.filter { $0.closedDescriptor == nil } ==
                [.socket, .isUp(0), .bind(0), .unblockRfkill(2), .socket, .isUp(0), .bind(0)])
        #expect(rig.log.messages(at: .notice) == ["hci0 was soft-blocked by rfkill: unblocked rfkill2 (hci0, bluetooth)"])
    }

    @Test func aSoftBlockThisProcessMayNotClearSaysWhatToRun() async {
        let rig = Rig(.init(bind: [.failure(Self.rfkillError)], unblockRfkill: [.failure(SystemErrno(EACCES))]),
                      rfkill: (index: 0, soft: true, hard: false))
        let error = await rig.openError()
        guard case let .rfkillBlocked(device, .soft, hint) = error else {
            Issue.record("expected a soft block, got \(String(describing: error))")
            return
        }
        #expect(device == "hci0")
        #expect(error?.description.hasPrefix("hci0 is soft-blocked by rfkill: run `sudo rfkill unblock bluetooth`") == true)
        #expect(hint.contains("/dev/rfkill: Permission denied (errno \(EACCES))"))
        #expect(hint.contains("blesensord --unblock-rfkill"))
        #expect(rig.calls.calls.count { $0 == .bind(0) } == 1)
    }

    @Test func aSoftBlockThatComesBackIsReportedNotLoopedOn() async {
        let rig = Rig(.init(bind: [.failure(Self.rfkillError)]), rfkill: (index: 0, soft: true, hard: false))
        let error = await rig.openError()
        guard case let .rfkillBlocked(_, .soft, hint) = error else {
            Issue.record("expected a soft block, got \(String(describing: error))")
            return
        }
        #expect(hint.contains("was blocked again after blesensord unblocked it"))
        #expect(rig.calls.calls.count { $0 == .unblockRfkill(0) } == 1)
        #expect(rig.calls.calls.count { $0 == .bind(0) } == 2)
    }

    @Test func aHardBlockIsNotSomethingSoftwareCanClear() async {
        let rig = Rig(.init(bind: [.failure(Self.rfkillError)]), rfkill: (index: 1, soft: true, hard: true))
        let error = await rig.openError()
        guard case let .rfkillBlocked(device, .hard, hint) = error else {
            Issue.record("expected a hard block, got \(String(describing: error))")
            return
        }
        #expect(device == "hci0")
        #expect(error?.description.hasPrefix("hci0 is hard-blocked by rfkill: rfkill1 (hci0, bluetooth) is switched off by hardware or firmware") == true)
        #expect(hint.contains("no software can clear it"))
        #expect(!rig.calls.calls.contains(.unblockRfkill(1)))
    }

    @Test func anRfkillRefusalWithoutAReadableSwitchStillSaysWhatToTry() async {
        let rig = Rig(.init(bind: [.failure(Self.rfkillError)]))
        let error = await rig.openError()
        #expect(error == .rfkillBlocked("hci0", .unknown, hint: "`rfkill list` shows which switch blocks it; `sudo rfkill unblock bluetooth` clears a soft block"))
        #expect(error?.description.hasPrefix("hci0 is blocked by rfkill: ") == true)
    }

    @Test func aMissingAdapterListsTheOnesPresent() async {
        let rig = Rig(.init(isUp: [.failure(SystemErrno(ENODEV))]), adapters: [2, 1])
        let error = await rig.openError()
        guard case let .adapterNotFound(device, hint) = error else {
            Issue.record("expected adapterNotFound, got \(String(describing: error))")
            return
        }
        #expect(device == "hci0")
        #expect(hint.contains("the kernel has hci1, hci2: set `transport: hci:1`"))
        #expect(hint.contains("--transport hci:1"))
        #expect(!rig.calls.calls.contains(.bind(0)))
    }

    @Test func noAdapterAtAllGivesTheRaspberryPiHints() async {
        let rig = Rig(.init(bind: [.failure(SystemErrno(ENODEV))]), adapters: [])
        let error = await rig.openError()
        guard case let .adapterNotFound(_, hint) = error else {
            Issue.record("expected adapterNotFound, got \(String(describing: error))")
            return
        }
        #expect(error?.description.hasPrefix("hci0 not found: the kernel has no Bluetooth adapter") == true)
        #expect(hint.contains("dtoverlay=disable-bt"))
        #expect(hint.contains("/boot/firmware/config.txt"))
        #expect(hint.contains("lsusb"))
    }

    @Test func bindPermissionAndKernelSupportFailuresAreMapped() async {
        let denied = Rig(.init(bind: [.failure(SystemErrno(EPERM))]))
        guard case let .permissionDenied(_, hint) = await denied.openError() else {
            Issue.record("expected permissionDenied")
            return
        }
        #expect(hint.contains("CAP_NET_ADMIN"))
        let unsupported = Rig(.init(socket: [.failure(SystemErrno(EAFNOSUPPORT))]))
        guard case let .bluetoothUnsupported(detail) = await unsupported.openError() else {
            Issue.record("expected bluetoothUnsupported")
            return
        }
        #expect(detail.contains("socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) failed"))
        #expect(unsupported.calls.calls == [.socket])
    }
}

extension FakeHCISystemCalls.Call {
    var closedDescriptor: Int32? {
        if case let .close(fd) = self { return fd }
        return nil
    }
}

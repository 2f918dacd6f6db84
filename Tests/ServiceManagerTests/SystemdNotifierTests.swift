import Testing
@testable import ServiceManager

@Suite struct SystemdNotifierTests {
    @Test(arguments: [false, true])
    func sendsReadyAndStatusAsOneDatagram(abstract: Bool) throws {
        let receiver = try DatagramReceiver(abstract: abstract)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        #expect(notifier.isEnabled)
        try notifier.send(.ready, .status("advertising as blesensor"))
        #expect(try receiver.receiveNow() == "READY=1\nSTATUS=advertising as blesensor")
    }

    @Test func everyKindOfNotification() throws {
        let receiver = try DatagramReceiver(abstract: true)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        try notifier.send(.watchdog)
        try notifier.send(.stopping, .errno(19))
        #expect(try receiver.receiveNow() == "WATCHDOG=1")
        #expect(try receiver.receiveNow() == "STOPPING=1\nERRNO=19")
    }

    @Test func aNewlineInAStatusCannotForgeAnotherAssignment() throws {
        let receiver = try DatagramReceiver(abstract: true)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        try notifier.send(.status("name \"x\nREADY=1\""))
        #expect(try receiver.receiveNow() == "STATUS=name \"x READY=1\"")
    }

    @Test func withoutNotifySocketItIsANoOp() throws {
        let notifier = try SystemdNotifier(environment: ["PATH": "/usr/bin"])
        #expect(!notifier.isEnabled)
        try notifier.send(.ready, .status("not under systemd"))
    }

    @Test(arguments: [
        ("run/systemd/notify", "absolute path"),
        ("@", "empty"),
        ("", "absolute path"),
        ("vsock:2:1234", "AF_VSOCK"),
        ("/" + String(repeating: "a", count: 107), "limit"),
        ("@" + String(repeating: "a", count: 108), "limit"),
    ])
    func unusableSocketAddressesAreReported(value: String, reason: String) {
        #expect {
            _ = try SystemdNotifier(environment: ["NOTIFY_SOCKET": value])
        } throws: { error in
            guard case let SystemdNotifyError.invalidSocketAddress(reported, why) = error else { return false }
            return reported == value && why.contains(reason) && error.localizedDescriptionMentionsUnit
        }
    }

    @Test func longestPathAndAbstractNameFit() throws {
        _ = try NotifySocketAddress(parsing: "/" + String(repeating: "a", count: 106))
        _ = try NotifySocketAddress(parsing: "@" + String(repeating: "a", count: 107))
    }

    @Test func aSocketNobodyListensOnIsASystemCallError() throws {
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": "/tmp/blesensor-nobody-\(UInt64.random(in: 0...UInt64.max))"])
        #expect(throws: SystemdNotifyError.systemCallFailed(operation: "sendto", errno: 2)) {
            try notifier.send(.ready)
        }
    }

    /// The receiver never reads: once its queue is full a send must fail at once, not block the
    /// caller (the kernel's queue holds net.unix.max_dgram_qlen datagrams, 10 by default).
    @Test func aFullQueueFailsInsteadOfBlocking() throws {
        let receiver = try DatagramReceiver(abstract: true)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        var outcome: SystemdNotifyError?
        for _ in 0..<10_000 {
            do { try notifier.send(.watchdog) } catch { outcome = error; break }
        }
        #expect(outcome == .wouldBlock)
        #expect(try receiver.receiveNow() == "WATCHDOG=1")
    }
}

extension Error {
    /// Every notifier error tells the operator what to do next.
    var localizedDescriptionMentionsUnit: Bool {
        String(describing: self).contains("Type=notify")
    }
}

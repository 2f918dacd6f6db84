#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport
@testable import ControlSocket

/// Replies a handler gives later (`remove-bond`): the server keeps serving, keeps order, and gives up in time.
@Suite struct DeferredReplyTests {
    @Test func securityRequestsRoundTrip() throws {
        let server = try TestServer()
        let client = try ControlClient.connect(path: server.path)
        #expect(try client.bonds() == Fixtures.bonds)
        #expect(try client.removeBond(BondAddress(address: "00:1A:7D:DA:71:13", kind: .public)) == Fixtures.laptop)
        #expect(throws: ControlClientError.daemonError("no bond with 11:22:33:44:55:66")) {
            try client.removeBond(BondAddress(address: "11:22:33:44:55:66", kind: nil))
        }
        #expect(try client.openPairingWindow(seconds: 90).windowRemainingSeconds == 90)
        // The connection still serves the commands of before.
        #expect(try client.status() == Fixtures.snapshot)
    }

    @Test func handlerFailuresBecomeErrorReplies() throws {
        let server = try TestServer(handler: DeferringHandler())
        let client = try ControlClient.connect(path: server.path)
        #expect(throws: ControlClientError.daemonError("no bonds here")) { try client.bonds() }
        #expect(throws: ControlClientError.daemonError("pairing is turned off")) { try client.openPairingWindow(seconds: 5) }
    }

    @Test func othersAreServedWhileAReplyIsPendingAndOrderIsKept() async throws {
        let handler = DeferringHandler()
        let server = try TestServer(handler: handler)
        let waiting = try RawClient(path: server.path)
        // A status request pipelined behind the deferred one must be answered after it.
        waiting.send(Lines.removePhone + "\n" + Lines.status + "\n")
        #expect(await handler.replies.wait(for: 1))

        let other = try RawClient(path: server.path)
        #expect(Lines.reply(other.roundTrip(Lines.status))?.status == Fixtures.snapshot)
        #expect(!waiting.hasData)

        handler.replies.all[0].succeed(Fixtures.phone)
        #expect(Lines.reply(waiting.readLine())?.removedBond == Fixtures.phone)
        #expect(Lines.reply(waiting.readLine())?.status == Fixtures.snapshot)
        #expect(handler.requests.all == [BondAddress(address: "4A:5B:6C:7D:8E:9F", kind: .random)])
    }

    @Test func onlyTheFirstCompletionCounts() async throws {
        let handler = DeferringHandler()
        let server = try TestServer(handler: handler)
        let client = try RawClient(path: server.path)
        client.send(Lines.removePhone + "\n")
        #expect(await handler.replies.wait(for: 1))
        let reply = handler.replies.all[0]
        reply.fail("the bond was not removed: disk full")
        reply.succeed(Fixtures.phone)
        #expect(client.readLine() == .line(Lines.error("the bond was not removed: disk full")))
        #expect(Lines.reply(client.roundTrip(Lines.status))?.status == Fixtures.snapshot)
    }

    @Test func aReplyThatNeverComesTimesOutAndALateOneIsDropped() async throws {
        var options = ControlServerOptions()
        options.replyTimeout = .milliseconds(200)
        let handler = DeferringHandler()
        let server = try TestServer(options: options, handler: handler)
        let client = try RawClient(path: server.path)
        client.send(Lines.removePhone + "\n")
        let (lines, closed) = client.readUntilClosed()
        #expect(lines == [Lines.error("blesensord did not finish remove-bond within 0.2 s; it may still complete: check again in a moment")])
        #expect(closed)
        #expect(server.count { $0 == .replyTimedOut(command: "remove-bond") } == 1)

        // Completing it now reaches nobody and disturbs nobody.
        #expect(await handler.replies.wait(for: 1))
        handler.replies.all[0].succeed(Fixtures.phone)
        let next = try RawClient(path: server.path)
        #expect(Lines.reply(next.roundTrip(Lines.status))?.status == Fixtures.snapshot)
    }

    @Test func aDroppedReplyAnswersWithAnError() throws {
        let server = try TestServer(handler: DeferringHandler(keep: false))
        let client = try RawClient(path: server.path)
        #expect(client.roundTrip(Lines.removePhone) == .line(Lines.error(
            "blesensord dropped the remove-bond request without answering; check `journalctl -u blesensord`")))
    }

    @Test func aClientThatStopsSendingStillGetsItsDeferredReply() async throws {
        let handler = DeferringHandler()
        let server = try TestServer(handler: handler)
        // The last request has no newline, as `printf '...' | socat` sends it.
        let client = try RawClient(path: server.path)
        client.send(Lines.removePhone)
        client.finishSending()
        #expect(await handler.replies.wait(for: 1))
        handler.replies.all[0].succeed(Fixtures.phone)
        let (lines, closed) = client.readUntilClosed()
        #expect(lines.count == 1 && Lines.reply(.line(lines[0]))?.removedBond == Fixtures.phone)
        #expect(closed)
    }

    @Test func aClientThatLeavesWhileWaitingIsClosed() async throws {
        let handler = DeferringHandler()
        let server = try TestServer(handler: handler)
        var client: RawClient? = try RawClient(path: server.path)
        client?.send(Lines.removePhone + "\n")
        #expect(await handler.replies.wait(for: 1))
        client = nil
        handler.replies.all[0].succeed(Fixtures.phone)
        // The late reply finds no connection; the server serves on.
        let next = try RawClient(path: server.path)
        #expect(Lines.reply(next.roundTrip(Lines.status))?.status == Fixtures.snapshot)
    }
}

/// The kernel says who connected (SO_PEERCRED): reading is for everyone who reaches the socket,
/// changing security state and seeing the passkey only for administrators.
@Suite struct AdministratorTests {
    static func server(_ administrators: Administrators) throws -> TestServer {
        var options = TestServer.defaultOptions
        options.administrators = administrators
        return try TestServer(options: options)
    }

    @Test func someoneWhoIsNotAnAdministratorReadsButChangesNothing() throws {
        let server = try Self.server(Administrators(users: [], group: nil))
        let client = try ControlClient.connect(path: server.path)
        #expect(try client.status() == Fixtures.snapshot)
        #expect(try client.bonds() == Fixtures.bonds)
        #expect(throws: ControlClientError.daemonError("removing a bond needs root (or the daemon's admin group, security.admin-group): run it with sudo")) {
            try client.removeBond(BondAddress(address: "00:1A:7D:DA:71:13", kind: .public))
        }
        #expect(throws: ControlClientError.daemonError("opening the pairing window needs root (or the daemon's admin group, security.admin-group): run it with sudo")) {
            try client.openPairingWindow(seconds: 60)
        }
        #expect(throws: ControlClientError.daemonError("seeing the passkey needs root (or the daemon's admin group, security.admin-group): run it with sudo")) {
            try client.pairing()
        }
        // Refusals leave the connection usable.
        #expect(try client.status() == Fixtures.snapshot)
    }

    @Test func theAdminGroupAndTheListedUsersAreAdministrators() throws {
        for administrators in [Administrators(users: [], group: getegid()), Administrators(users: [geteuid()], group: nil)] {
            let server = try Self.server(administrators)
            let client = try ControlClient.connect(path: server.path)
            #expect(try client.pairing().passkey == "123456")
            #expect(try client.removeBond(BondAddress(address: "00:1A:7D:DA:71:13", kind: .public)) == Fixtures.laptop)
        }
    }

    @Test func theCallerIsWhatTheKernelSays() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { pair.forEach { _ = close($0) } }
        let caller = try #require(Caller.peer(of: pair[0]))
        #expect(caller.uid == geteuid() && caller.gid == getegid())
        #expect(!Administrators(users: [], group: nil).admit(caller))
        #expect(!Administrators(users: [0, geteuid()], group: nil).admit(nil))
        #expect(Administrators(users: [], group: 4242).admit(Caller(uid: 1000, gid: 100, groups: [27, 4242])))
    }
}

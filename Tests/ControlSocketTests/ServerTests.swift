#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import ControlSocket

@Suite struct ServerTests {
    @Test func statusRoundTrip() throws {
        let server = try TestServer()
        let client = try ControlClient.connect(path: server.path)
        #expect(try client.status() == Fixtures.snapshot)
        // The connection serves further requests.
        #expect(try client.status() == Fixtures.snapshot)
    }

    @Test func socketFileHasTheConfiguredModeAndIsRemovedOnStop() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/run/blesensor/control.sock"
        var options = ControlServerOptions()
        options.socketMode = 0o660
        options.directoryMode = 0o750
        let server = ControlServer(path: path, options: options, handler: FixedHandler())
        try server.start()
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(stat(directory.path + "/run/blesensor", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o750)
        server.stop()
        #expect(lstat(path, &info) != 0 && errno == ENOENT)
        #expect(throws: ControlClientError.notRunning(path: path)) { try ControlClient.connect(path: path) }
        server.stop()  // Idempotent.
    }

    @Test func watchReceivesPublishedUpdatesInOrder() throws {
        let server = try TestServer()
        let client = try RawClient(path: server.path)
        #expect(!server.server.hasWatchers)
        #expect(client.roundTrip(Lines.watch) == .line(Lines.ack))
        #expect(server.server.hasWatchers)
        for index in 0..<100 { server.server.publish(Fixtures.sensor(index)) }
        for index in 0..<100 { #expect(Lines.update(client.readLine()) == Fixtures.sensor(index)) }
    }

    @Test func controlClientWatchesSensors() throws {
        let server = try TestServer()
        let client = try ControlClient.connect(path: server.path)
        var received: [SensorStatus] = []
        try client.watchSensors(acknowledged: {
            // Published from the watcher's thread after the ack: the loop delivers them all the same.
            for index in 0..<3 { server.server.publish(Fixtures.sensor(index)) }
        }) { sensor in
            received.append(sensor)
            return received.count < 3
        }
        #expect(received == (0..<3).map { Fixtures.sensor($0) })
    }

    @Test func malformedJSONGetsAnErrorAndTheConnectionStillWorks() throws {
        let server = try TestServer()
        let client = try RawClient(path: server.path)
        #expect(client.roundTrip("{\"version\":1,") == .line(Lines.error(
            #"malformed request: expected one JSON object per line like {\"version\":1,\"command\":\"status\"}"#)))
        #expect(Lines.reply(client.roundTrip(Lines.status))?.status == Fixtures.snapshot)
        #expect(server.count { if case .requestRejected = $0 { true } else { false } } == 1)
    }

    @Test func unknownCommandAndVersionMismatchAreNamed() throws {
        let server = try TestServer()
        let client = try RawClient(path: server.path)
        #expect(client.roundTrip(#"{"version":1,"command":"reboot"}"#)
            == .line(Lines.error("unknown command 'reboot'; known: status, watch-sensors, bonds, remove-bond, open-pairing-window, pairing, watch-pairing")))
        #expect(client.roundTrip(#"{"version":2,"command":"status"}"#) == .line(Lines.error(
            "unsupported control protocol version 2; this blesensord speaks version 1: install matching blesensor and blesensord")))
        // CRLF line endings and blank lines are accepted.
        client.send("\r\n\n")
        #expect(Lines.reply(client.roundTrip(Lines.status + "\r"))?.ok == true)
    }

    @Test func oversizedLineGetsAnErrorAndIsClosedWhileOthersAreServed() throws {
        let server = try TestServer()
        let client = try RawClient(path: server.path)
        // No newline: the limit applies before the line is complete.
        client.send([UInt8](repeating: UInt8(ascii: "a"), count: 5000))
        let (lines, closed) = client.readUntilClosed()
        #expect(lines == [Lines.error("request too long (max 4096 bytes)")])
        #expect(closed)
        // A line of exactly the limit is still read.
        let padded = #"{"version":1,"command":"status","pad":""# + String(repeating: "p", count: 4096) + "\"}"
        let exact = String(padded.prefix(4094)) + "\"}"
        let other = try RawClient(path: server.path)
        #expect(exact.utf8.count == 4096)
        #expect(Lines.reply(other.roundTrip(exact))?.status == Fixtures.snapshot)
    }

    @Test func seventeenthClientIsRefused() throws {
        let server = try TestServer()
        // A round trip on each proves the server has accepted it.
        let clients = try (0..<16).map { _ in try RawClient(path: server.path) }
        for client in clients { #expect(Lines.reply(client.roundTrip(Lines.status))?.ok == true) }
        let extra = try RawClient(path: server.path)
        let (lines, closed) = extra.readUntilClosed()
        #expect(lines == [Lines.error("too many control clients (blesensord serves at most 16 at once); try again later")])
        #expect(closed)
        #expect(server.count { $0 == .clientRefused(maxClients: 16) } == 1)
        #expect(Lines.reply(clients[0].roundTrip(Lines.status))?.ok == true)
    }

    @Test func idleClientIsClosedButWatchersAreNot() throws {
        var options = ControlServerOptions()
        // Long enough for the watcher's first request to arrive even on a loaded machine.
        options.idleTimeout = .milliseconds(500)
        let server = try TestServer(options: options)
        let watcher = try RawClient(path: server.path)
        #expect(watcher.roundTrip(Lines.watch) == .line(Lines.ack))
        let idle = try RawClient(path: server.path)
        // The barrier: the server closing the silent client. The watcher has been silent longer.
        let (lines, closed) = idle.readUntilClosed()
        #expect(lines.isEmpty)
        #expect(closed)
        #expect(server.count { $0 == .idleClientClosed } == 1)
        server.server.publish(Fixtures.sensor(7))
        #expect(Lines.update(watcher.readLine()) == Fixtures.sensor(7))
    }

    @Test func watcherThatDoesNotReadIsDroppedAndOthersContinue() throws {
        var options = ControlServerOptions()
        options.maxOutputBytes = 16 * 1024
        let server = try TestServer(options: options)
        let slow = try RawClient(path: server.path)
        #expect(slow.roundTrip(Lines.watch) == .line(Lines.ack))
        let reader = try RawClient(path: server.path)
        #expect(reader.roundTrip(Lines.watch) == .line(Lines.ack))

        // Each round trip through the reader shows the loop has queued that update for the slow client too;
        // once the kernel's socket buffer and 16 KiB of queue are full, the slow client goes.
        var published = 0
        func dropped() -> Bool { server.count { if case .slowWatcherDropped = $0 { true } else { false } } > 0 }
        while !dropped() && published < 5000 {
            server.server.publish(Fixtures.sensor(published, padding: 2000))
            #expect(Lines.update(reader.readLine()) == Fixtures.sensor(published, padding: 2000))
            published += 1
        }
        #expect(dropped())
        let (lines, closed) = slow.readUntilClosed()
        #expect(closed)
        #expect(lines.count < published)
        server.server.publish(Fixtures.sensor(1))
        #expect(Lines.update(reader.readLine()) == Fixtures.sensor(1))
    }

    @Test func secondServerOnTheSamePathRefuses() throws {
        let first = try TestServer()
        let second = ControlServer(path: first.path, handler: FixedHandler())
        #expect(throws: ControlServerError.alreadyRunning(path: first.path)) { try second.start() }
        #expect(ControlServerError.alreadyRunning(path: "/run/blesensor/control.sock").description
            == "another blesensord is running (control socket /run/blesensor/control.sock answers)")
        // The first still serves, its socket untouched.
        #expect(try ControlClient.connect(path: first.path).status() == Fixtures.snapshot)
    }

    @Test func staleSocketIsReplaced() throws {
        let directory = TemporaryDirectory()
        let path = directory.socketPath
        try makeStaleSocket(at: path)
        #expect(throws: ControlClientError.staleSocket(path: path)) { try ControlClient.connect(path: path) }
        let server = ControlServer(path: path, handler: FixedHandler())
        try server.start()
        defer { server.stop() }
        #expect(try ControlClient.connect(path: path).status() == Fixtures.snapshot)
    }

    @Test func aFileThatIsNotASocketIsLeftAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.socketPath
        let fd = open(path, O_CREAT | O_WRONLY, 0o644)
        close(fd)
        #expect(throws: ControlServerError.notASocket(path: path)) {
            try ControlServer(path: path, handler: FixedHandler()).start()
        }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
    }

    @Test func startTwiceIsRefused() throws {
        let server = try TestServer()
        #expect(throws: ControlServerError.alreadyStarted) { try server.server.start() }
    }

    @Test func requestWithoutFinalNewlineIsAnsweredAfterHalfClose() throws {
        let server = try TestServer()
        let client = try RawClient(path: server.path)
        client.send(Lines.status)
        shutdown(client.fd, Int32(SHUT_WR))
        let (lines, closed) = client.readUntilClosed()
        #expect(lines.count == 1)
        #expect(closed)
    }
}

/// A socket file nobody listens on, as a crashed daemon leaves it: bound, never listened on, closed.
func makeStaleSocket(at path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    guard let address = UnixSocketAddress(path: path), address.bind(fd) == 0 else { throw ClientSetupError(errno: errno) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import ControlSocket

@Suite struct ClientTests {
    @Test func missingSocketSaysHowToStartTheDaemon() {
        let directory = TemporaryDirectory()
        let path = directory.socketPath
        #expect(throws: ControlClientError.notRunning(path: path)) { try ControlClient.connect(path: path) }
        #expect(ControlClientError.notRunning(path: "/run/blesensor/control.sock").description
            == "blesensord is not running (no control socket at /run/blesensor/control.sock); start it with `systemctl start blesensord`")
        #expect(ControlClientError.staleSocket(path: "/run/blesensor/control.sock").description
            == "blesensord is not running (stale socket at /run/blesensor/control.sock)")
    }

    // root bypasses file permissions, so EACCES cannot be provoked there.
    @Test(.enabled(if: geteuid() != 0, "root is never denied access to a socket"))
    func permissionDeniedNamesTheGroup() throws {
        let server = try TestServer()
        _ = chmod(server.path, 0)
        #expect(throws: ControlClientError.permissionDenied(path: server.path)) { try ControlClient.connect(path: server.path) }
    }

    @Test func permissionMessage() {
        #expect(ControlClientError.permissionDenied(path: "/run/blesensor/control.sock").description
            == "permission denied on /run/blesensor/control.sock: run as root or add your user to the blesensor group")
    }

    @Test func silentDaemonTimesOut() throws {
        let directory = TemporaryDirectory()
        let listener = try FakeDaemon(path: directory.socketPath)
        // listen() without accept(): the connection is queued, nobody ever answers.
        let client = try ControlClient.connect(path: listener.path, replyTimeout: .milliseconds(100))
        #expect(throws: ControlClientError.timedOut(path: listener.path, waitingFor: "the status reply", seconds: 0.1)) {
            try client.status()
        }
        #expect(ControlClientError.timedOut(path: "/run/blesensor/control.sock", waitingFor: "the status reply", seconds: 5).description
            == "blesensord did not answer on /run/blesensor/control.sock within 5 s (waiting for the status reply); it may be hung: check `journalctl -u blesensord`")
    }

    @Test func malformedRepliesAreErrorsNotTraps() throws {
        let cases: [(reply: String, expected: ControlClientError)] = [
            ("garbage", .malformedReply("not valid JSON")),
            (#"{"version":1}"#, .malformedReply("missing \"ok\"")),
            (#"{"version":1,"ok":true}"#, .malformedReply("the status reply has no \"status\"")),
            (#"{"version":1,"ok":false,"error":"busy"}"#, .daemonError("busy")),
            (#"{"version":3,"ok":true,"future":{}}"#, .unsupportedVersion(daemon: 3)),
        ]
        for (reply, expected) in cases {
            let directory = TemporaryDirectory()
            let daemon = try FakeDaemon(path: directory.socketPath)
            let client = try ControlClient.connect(path: daemon.path)
            daemon.acceptAndSend(reply + "\n")
            #expect(throws: expected) { try client.status() }
        }
    }

    @Test func daemonClosingIsReportedAsDisconnected() throws {
        let directory = TemporaryDirectory()
        let daemon = try FakeDaemon(path: directory.socketPath)
        let client = try ControlClient.connect(path: daemon.path)
        daemon.acceptAndSend(Lines.ack + "\n", thenClose: true)
        #expect(throws: ControlClientError.disconnected(path: daemon.path)) {
            try client.watchSensors { _ in true }
        }
    }

    @Test func stoppedServerEndsTheWatch() throws {
        let server = try TestServer()
        let client = try ControlClient.connect(path: server.path)
        #expect(throws: ControlClientError.disconnected(path: server.path)) {
            try client.watchSensors(acknowledged: { server.server.stop() }) { _ in true }
        }
    }

    @Test func pathTooLong() {
        let path = "/tmp/" + String(repeating: "x", count: 200)
        #expect(throws: ControlClientError.pathTooLong(path: path, maxBytes: 107)) { try ControlClient.connect(path: path) }
    }
}

/// A listening socket the test drives by hand, to play a misbehaving daemon.
final class FakeDaemon {
    let path: String
    private let fd: Int32
    private var accepted: [Int32] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard let address = UnixSocketAddress(path: path), address.bind(fd) == 0, listen(fd, 4) == 0 else {
            throw ClientSetupError(errno: errno)
        }
    }

    /// Accepts the queued connection and sends `text` before the client even asks.
    func acceptAndSend(_ text: String, thenClose: Bool = false) {
        let connection = accept(fd, nil, nil)
        _ = Array(text.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if thenClose { close(connection) } else { accepted.append(connection) }
    }

    deinit {
        accepted.forEach { close($0) }
        close(fd)
        unlink(path)
    }
}

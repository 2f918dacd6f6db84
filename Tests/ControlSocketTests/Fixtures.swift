#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Testing
import TestSupport
@testable import ControlSocket

/// A representative snapshot: one central, a working bme280, a failed sensor and a heart-rate strap.
enum Fixtures {
    static let bme280 = SensorStatus(
        name: "room", driver: "bme280", value: 21.5, unit: "°C", ageSeconds: 1.25, state: .ok, error: nil,
        readings: [
            QuantityReading(quantity: "temperature", value: 21.5, unit: "°C"),
            QuantityReading(quantity: "humidity", value: 45, unit: "%RH"),
            QuantityReading(quantity: "pressure", value: 1013.25, unit: "hPa"),
        ],
        reads: 120, failures: 0)

    static let failed = SensorStatus(
        name: "attic", driver: "sht31", value: nil, unit: "°C", ageSeconds: nil, state: .failed,
        error: "i2c 0x44 on /dev/i2c-1: Remote I/O error", readings: [], reads: 0, failures: 3)

    static let heart = SensorStatus(
        name: "chest", driver: "max30102", value: 72, unit: "bpm", ageSeconds: 75, state: .ok, error: nil,
        readings: [QuantityReading(quantity: "heart-rate", value: 72, unit: "bpm",
                                   rrIntervalsMilliseconds: [812, 790.4], contact: "not-detected")],
        reads: 40, failures: 1)

    static let snapshot = StatusSnapshot(
        transport: "hci:0", address: "C0:11:22:33:44:55 (random static)", advertising: true,
        uptimeSeconds: 3723.9, board: "raspberry-pi-4", deviceName: "blesensor-room",
        centrals: [CentralStatus(address: "4A:5B:6C:7D:8E:9F", addressType: "random", mtu: 247,
                                 security: "authenticated", subscriptions: ["2A6E notify", "2A6F notify"],
                                 sent: 1234, coalesced: 5, dropped: 0, queued: 1)],
        sensors: [bme280, failed, heart])

    /// 2025-05-01 12:00:00Z and a day later: whole seconds, as ISO 8601 carries them.
    static let created = Date(timeIntervalSince1970: 1_746_100_800)
    static let seen = Date(timeIntervalSince1970: 1_746_187_200)

    static let phone = BondStatus(address: "4A:5B:6C:7D:8E:9F", addressType: "random", keySize: 16, authenticated: true,
                                  secureConnections: true, hasIRK: true, createdAt: created, lastSeen: seen, connected: true)
    static let laptop = BondStatus(address: "00:1A:7D:DA:71:13", addressType: "public", keySize: 16, authenticated: false,
                                   secureConnections: false, hasIRK: false, createdAt: created, lastSeen: created, connected: false)
    static let bonds = [phone, laptop]

    static let windowOpen = PairingStatus(mode: .window, windowRemainingSeconds: 59.6, passkeyMode: .fixed, passkey: "012345")

    /// The snapshot with the security fields a current daemon adds.
    static var secureSnapshot: StatusSnapshot {
        var snapshot = Fixtures.snapshot
        snapshot.bonds = bonds.map(\.identity)
        snapshot.pairing = windowOpen
        snapshot.centrals[0].bonded = true
        snapshot.centrals[0].securityLevel = "authenticated"
        snapshot.centrals[0].keySize = 16
        return snapshot
    }

    static func sensor(_ index: Int, padding: Int = 0) -> SensorStatus {
        SensorStatus(name: "s\(index)", driver: "test", value: Double(index), unit: "°C", ageSeconds: 0,
                     state: .ok, error: padding > 0 ? String(repeating: "x", count: padding) : nil,
                     readings: [], reads: Int64(index), failures: 0)
    }
}

/// Answers from fixed data; `remove-bond` at once (a synchronous completion goes through the same path).
struct FixedHandler: ControlHandler {
    var snapshot = Fixtures.snapshot
    var bondList = Fixtures.bonds

    func status() -> StatusSnapshot { snapshot }

    func bonds() -> Result<[BondStatus], ControlFailure> { .success(bondList) }

    func removeBond(_ address: BondAddress, reply: DeferredReply<BondStatus>) {
        guard let bond = bondList.first(where: { $0.address == address.address }) else {
            return reply.fail("no bond with \(address)")
        }
        reply.succeed(bond)
    }

    func openPairingWindow(seconds: Int) -> Result<PairingStatus, ControlFailure> {
        .success(PairingStatus(mode: .window, windowRemainingSeconds: Double(seconds), passkeyMode: .none, passkey: nil))
    }

    func pairing() -> Result<PairingStatus, ControlFailure> {
        .success(PairingStatus(mode: .window, windowRemainingSeconds: nil, passkeyMode: .fixed, passkey: "123456"))
    }
}

/// Keeps each `remove-bond` reply for the test to complete (or never complete, or drop) when it chooses.
final class DeferringHandler: ControlHandler {
    let replies = Recorder<DeferredReply<BondStatus>>()
    let requests = Recorder<BondAddress>()
    /// Dropped replies are released at once instead of kept: their deinit answers.
    let keep: Bool

    init(keep: Bool = true) { self.keep = keep }

    func status() -> StatusSnapshot { Fixtures.snapshot }
    func bonds() -> Result<[BondStatus], ControlFailure> { .failure(ControlFailure("no bonds here")) }

    func removeBond(_ address: BondAddress, reply: DeferredReply<BondStatus>) {
        if keep { replies.append(reply) }
        requests.append(address)
    }

    func openPairingWindow(seconds: Int) -> Result<PairingStatus, ControlFailure> {
        .failure(ControlFailure("pairing is turned off"))
    }

    func pairing() -> Result<PairingStatus, ControlFailure> { .failure(ControlFailure("pairing is turned off")) }
}

/// A fresh directory under /tmp (short, since sun_path holds 107 bytes), removed with its contents.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/blesensor-ctl-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed: \(errno)")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var socketPath: String { path + "/control.sock" }

    deinit { Self.remove(path) }

    private static func remove(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            _ = chmod(path, 0o700)
            if let directory = opendir(path) {
                var names: [String] = []
                while let entry = readdir(directory) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(directory)
                for name in names { remove(path + "/" + name) }
            }
            _ = rmdir(path)
        } else {
            _ = unlink(path)
        }
    }
}

/// A server on a temporary path with its events recorded; stopped when released.
final class TestServer {
    let directory = TemporaryDirectory()
    let events = Recorder<ControlServerEvent>()
    let server: ControlServer

    init(options: ControlServerOptions = TestServer.defaultOptions, handler: any ControlHandler = FixedHandler()) throws {
        let events = self.events
        server = ControlServer(path: directory.socketPath, options: options, handler: handler) { events.append($0) }
        try server.start()
    }

    /// The daemon's 10 s reply timeout is wall-clock: a test whose `await` resumes late on a loaded
    /// machine (the cooperative pool busy with other suites) would see its deferred request time out
    /// before it answered it. Only the timeout test sets a short one.
    static var defaultOptions: ControlServerOptions {
        var options = ControlServerOptions()
        options.replyTimeout = Duration.seconds(300).scaledForTests
        return options
    }

    var path: String { server.path }

    func count(_ predicate: (ControlServerEvent) -> Bool) -> Int { events.count(where: predicate) }

    deinit { server.stop() }
}

/// A raw protocol client: bytes in, lines out, every wait bounded by SO_RCVTIMEO so a broken server
/// fails the test instead of hanging it.
final class RawClient {
    enum ReadResult: Equatable {
        case line(String)
        /// EOF or ECONNRESET: the server closed the connection.
        case closed
        case timedOut
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String, receiveTimeoutSeconds: Int = 5) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard let address = UnixSocketAddress(path: path) else { throw ClientSetupError(errno: ENAMETOOLONG) }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard address.connect(fd) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ClientSetupError(errno: code)
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        send(bytes)
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }  // The server closed; the following read reports it.
            offset += sent
        }
    }

    /// Whether a reply is already waiting, without waiting for one.
    var hasData: Bool {
        guard buffer.isEmpty else { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) > 0
    }

    /// Ends the sending side, as `printf ... | socat` does after its request.
    func finishSending() { _ = shutdown(fd, Int32(SHUT_WR)) }

    func readLine() -> ReadResult {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return .line(line)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[0..<count]
                continue
            }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            default: return .closed
            }
        }
    }

    /// Request, then its one reply line.
    func roundTrip(_ request: String) -> ReadResult {
        send(request + "\n")
        return readLine()
    }

    /// Reads until the server closes; the lines read on the way.
    func readUntilClosed() -> (lines: [String], closed: Bool) {
        var lines: [String] = []
        while true {
            switch readLine() {
            case .line(let line): lines.append(line)
            case .closed: return (lines, true)
            case .timedOut: return (lines, false)
            }
        }
    }
}

struct ClientSetupError: Error { var errno: Int32 }

enum Lines {
    static let status = #"{"version":1,"command":"status"}"#
    static let removePhone = #"{"version":1,"command":"remove-bond","address":"4a:5b:6c:7d:8e:9f (random)"}"#
    static let watch = #"{"version":1,"command":"watch-sensors"}"#
    static let ack = #"{"ok":true,"version":1}"#

    static func error(_ message: String) -> String {
        #"{"error":"\#(message)","ok":false,"version":1}"#
    }

    static func reply(_ line: RawClient.ReadResult) -> ControlReply? {
        guard case .line(let text) = line else { return nil }
        return try? ControlCodec.decoder().decode(ControlReply.self, from: Data(text.utf8))
    }

    static func update(_ line: RawClient.ReadResult) -> SensorStatus? {
        guard case .line(let text) = line else { return nil }
        return (try? JSONDecoder().decode(SensorUpdateMessage.self, from: Data(text.utf8)))?.sensor
    }
}

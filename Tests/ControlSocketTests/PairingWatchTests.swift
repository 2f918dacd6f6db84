import Testing
@testable import ControlSocket

/// `watch-pairing`, behind `blesensor pair --follow`: an administrator's stream of pairing events,
/// passkeys included; nobody else gets it, and it never mixes with the sensor stream.
@Suite struct PairingWatchTests {
    static let passkey = PairingEvent(kind: .passkey, peer: "4A:5B:6C:7D:8E:9F (random)", passkey: "004711")
    static let paired = PairingEvent(kind: .paired, peer: "4A:5B:6C:7D:8E:9F (random)", detail: "bonded, authenticated")

    @Test func anAdministratorFollowsPairingEventsInOrderAndNoSensorUpdates() throws {
        let server = try TestServer()
        let sensors = try ControlClient.connect(path: server.path)
        let client = try ControlClient.connect(path: server.path)
        var received: [PairingEvent] = []
        try client.watchPairing(acknowledged: {
            server.server.publish(Fixtures.sensor(0))
            server.server.publish(Self.passkey)
            server.server.publish(Self.paired)
            server.server.publish(PairingEvent(kind: .windowClosed))
            return true
        }) { event in
            received.append(event)
            return event.kind != .windowClosed
        }
        #expect(received == [Self.passkey, Self.paired, PairingEvent(kind: .windowClosed)])

        // And the other way round: a sensor watcher never sees a passkey.
        var updates: [SensorStatus] = []
        try sensors.watchSensors(acknowledged: {
            server.server.publish(Self.passkey)
            server.server.publish(Fixtures.sensor(1))
        }) { update in
            updates.append(update)
            return false
        }
        #expect(updates == [Fixtures.sensor(1)])
    }

    @Test func someoneWhoIsNotAnAdministratorCannotFollowPairing() throws {
        let server = try AdministratorTests.server(Administrators(users: [], group: nil))
        let client = try ControlClient.connect(path: server.path)
        #expect(throws: ControlClientError.daemonError(
            "following pairing (it shows passkeys) needs root (or the daemon's admin group, security.admin-group): run it with sudo")) {
            try client.watchPairing { _ in false }
        }
        #expect(try client.status() == Fixtures.snapshot)
    }

    @Test func eventLinesSayWhatToDo() {
        #expect(SecurityFormatter.pairingEventLine(Self.passkey) == "4A:5B:6C:7D:8E:9F (random) asks for the passkey: type 004711 on it")
        #expect(SecurityFormatter.pairingEventLine(Self.paired) == "4A:5B:6C:7D:8E:9F (random) paired: bonded, authenticated")
        #expect(SecurityFormatter.pairingEventLine(PairingEvent(kind: .comparison, peer: "P", number: "123456"))
                == "P numeric comparison 123456: its screen must show the same number")
        #expect(SecurityFormatter.pairingEventLine(PairingEvent(kind: .windowOpened, detail: "60 s")) == "pairing window opened for 60 s")
    }
}

/// A stuck loop keeps at most `maxPendingUpdates` sensor updates, and never drops a pairing event
/// for them: a passkey on its way to `pair --follow` outlives a burst of readings.
@Suite struct PendingUpdateBoundTests {
    @Test func sensorUpdatesNeverPushOutAPairingEvent() throws {
        let core = try #require(ServerCore())
        defer { core.closeWakePipe() }
        core.enqueue(Array("passkey".utf8), for: .pairing)
        for index in 0..<(ServerCore.maxPendingUpdates + 100) { core.enqueue(Array("sensor \(index)".utf8), for: .sensors) }
        let work = try #require(core.takeWork())
        #expect(work.updates.count == ServerCore.maxPendingUpdates)
        #expect(work.updates.first.map { $0.topic == .pairing && $0.line == Array("passkey".utf8) } == true)
        #expect(work.updates.last.map { $0.line == Array("sensor \(ServerCore.maxPendingUpdates + 99)".utf8) } == true)
    }
}

/// A request of exactly the longest length sent with CRLF is one request, however the reads cut it.
@Suite struct LongestRequestTests {
    @Test func aTrailingCarriageReturnIsNotCountedBeforeItsNewline() {
        let max = ControlProtocol.maxRequestBytes
        let longest = [UInt8](repeating: 0x20, count: max)
        #expect(!ServerLoop.unterminatedTooLong(longest, max: max))
        #expect(!ServerLoop.unterminatedTooLong(longest + [0x0D], max: max))
        #expect(ServerLoop.unterminatedTooLong(longest + [0x20], max: max))
        #expect(ServerLoop.unterminatedTooLong(longest + [0x20, 0x0D], max: max))
    }

    @Test func theLongestRequestWithCRLFIsAnswered() throws {
        let server = try TestServer()
        let client = try RawClient(path: server.path)
        let head = #"{"version":1,"command":"status","address":""#, tail = #""}"#
        let request = head + String(repeating: "x", count: ControlProtocol.maxRequestBytes - head.utf8.count - tail.utf8.count) + tail
        #expect(request.utf8.count == ControlProtocol.maxRequestBytes)
        client.send(request + "\r")
        client.send("\n")
        #expect(Lines.reply(client.readLine())?.status == Fixtures.snapshot)
    }
}

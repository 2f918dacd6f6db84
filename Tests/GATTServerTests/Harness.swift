import ATT
import BLECore
import GATT
import GATTServer
import Synchronization

/// Collects what the server sends; `next` waits for the following PDU (nil after a timeout, so a
/// missing response fails the test instead of hanging it).
final class Outbox: Sendable {
    struct Sent: Equatable, Sendable {
        let connection: UInt16
        let hex: String
    }

    private struct State {
        var queue: [Sent] = []
        var waiter: (id: Int, continuation: CheckedContinuation<Sent?, Never>)?
        var nextID = 0
    }

    private let state = Mutex(State())

    func push(_ connection: UInt16, _ pdu: [UInt8]) {
        let sent = Sent(connection: connection, hex: pdu.hexString)
        let waiter = state.withLock { state -> CheckedContinuation<Sent?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.queue.append(sent)
            return nil
        }
        waiter?.resume(returning: sent)
    }

    var pending: [Sent] { state.withLock { $0.queue } }

    func next(timeout: Duration = .seconds(5)) async -> Sent? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Sent?, Never>) in
            let id = state.withLock { state -> Int? in
                if !state.queue.isEmpty {
                    continuation.resume(returning: state.queue.removeFirst())
                    return nil
                }
                state.nextID += 1
                state.waiter = (state.nextID, continuation)
                return state.nextID
            }
            guard let id else { return }
            Task {
                try? await Task.sleep(for: timeout)
                let expired = self.state.withLock { state -> CheckedContinuation<Sent?, Never>? in
                    guard let waiter = state.waiter, waiter.id == id else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                expired?.resume(returning: nil)
            }
        }
    }
}

/// A server over `TestDatabase` with a fake delegate, fed raw bytes.
struct Harness {
    let server: GATTServer
    let delegate: FakeDelegate
    let outbox: Outbox

    init(configuration: GATTServer.Configuration = .init(), connections: [UInt16] = [1, 2]) throws {
        let delegate = FakeDelegate()
        let outbox = Outbox()
        server = GATTServer(database: try TestDatabase.make(), configuration: configuration, delegate: delegate,
                            send: { connection, pdu in outbox.push(connection, pdu) })
        self.delegate = delegate
        self.outbox = outbox
        for connection in connections { server.connectionOpened(connection) }
    }

    /// Feeds `hex` on `connection` without waiting.
    func feed(_ hex: String, on connection: UInt16 = 1) {
        server.receive(bytes(hex), on: connection)
    }

    /// Feeds `hex` and returns the next PDU the server sends (on any connection), as lowercase hex.
    func exchange(_ hex: String, on connection: UInt16 = 1) async -> String? {
        feed(hex, on: connection)
        guard let sent = await outbox.next() else { return nil }
        return sent.connection == connection ? sent.hex : "on connection \(sent.connection): \(sent.hex)"
    }

    /// Feeds a PDU that must get no answer: a Read of the Body Sensor Location follows, and its
    /// response must be the next PDU.
    func expectSilence(after hex: String, on connection: UInt16 = 1) async -> Bool {
        feed(hex, on: connection)
        return await exchange("0a 1500", on: connection) == "0b01"
    }
}

func bytes(_ hex: String) -> [UInt8] {
    (try? [UInt8](hex: hex)) ?? []
}

/// Lowercase hex without separators, to compare with what the server sent.
func h(_ hex: String) -> String {
    bytes(hex).hexString
}

import ATT
import BLECore
import GATT
import GATTServer
import L2CAP
@testable import HCI
import Synchronization
import TestSupport

/// Collects what the server sends; `next` waits for the following PDU (nil after a timeout, so a
/// missing response fails the test instead of hanging it).
final class Outbox: Sendable {
    struct Sent: Equatable, Sendable {
        let connection: UInt16
        let hex: String
    }

    private let mailbox = Mailbox<Sent>()
    private let pushed = Mutex(0)

    /// PDUs the server has sent so far.
    var sentCount: Int { pushed.withLock { $0 } }

    func push(_ connection: UInt16, _ pdu: [UInt8]) {
        pushed.withLock { $0 += 1 }
        mailbox.deliver(Sent(connection: connection, hex: pdu.hexString))
    }

    var pending: [Sent] { mailbox.pending }

    func next(timeout: Duration = .seconds(5)) async -> Sent? { await mailbox.next(timeout: timeout) }
}

/// A server over `TestDatabase` with a fake delegate, fed raw bytes on links named by handle
/// (`open` on a handle in use makes a new link there, as a controller reusing handles does).
final class Harness: Sendable {
    let server: GATTServer
    let delegate: FakeDelegate
    let outbox: Outbox
    private let links = Mutex<[UInt16: Link]>([:])

    init(configuration: GATTServer.Configuration = .init(), connections: [UInt16] = [1, 2],
         database: AttributeDatabase? = nil) throws {
        let delegate = FakeDelegate()
        let outbox = Outbox()
        server = GATTServer(database: try database ?? TestDatabase.make(), configuration: configuration, delegate: delegate,
                            output: ATTBearer(send: { link, pdu in
                                outbox.push(link.handle, pdu)
                                return .sent
                            }, waitForRoom: { _ in }))
        delegate.sentCount.withLock { $0 = { outbox.sentCount } }
        self.delegate = delegate
        self.outbox = outbox
        for connection in connections { open(connection) }
    }

    /// The link open on `handle`.
    func link(_ handle: UInt16) -> Link {
        links.withLock { links in
            if let link = links[handle] { return link }
            let link = Self.makeLink(handle)
            links[handle] = link
            return link
        }
    }

    static func makeLink(_ handle: UInt16) -> Link {
        Link(handle: handle, role: .peripheral, peer: DeviceAddress(BluetoothAddress("C0:00:00:00:00:C1")!, type: .randomDevice),
             parameters: Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 500))
    }

    /// A new link on `handle`, served from now on.
    func open(_ handle: UInt16) {
        let link = Self.makeLink(handle)
        links.withLock { $0[handle] = link }
        server.linkOpened(link)
    }

    func close(_ handle: UInt16) {
        let link = link(handle)
        _ = link.close(reason: .remoteUserTerminated)
        server.linkClosed(link)
    }

    /// Encrypts the link on `handle` as the host would after Encryption Change with this key.
    func encrypt(_ handle: UInt16, keySize: Int, authenticated: Bool = false) {
        let link = link(handle)
        link.expectEncryption(with: EncryptionKeyProperties(keySize: keySize, authenticated: authenticated, secureConnections: false))
        _ = link.encryptionChanged(enabled: true, controllerKeySize: nil)
    }

    /// Subscribers by handle.
    func subscribers(of characteristic: CharacteristicID) -> [UInt16: ClientConfiguration] {
        Dictionary(uniqueKeysWithValues: server.subscribers(of: characteristic).map { ($0.link.handle, $0.configuration) })
    }

    /// Feeds `hex` on `connection` without waiting.
    func feed(_ hex: String, on connection: UInt16 = 1) {
        server.receive(bytes(hex), on: link(connection))
    }

    /// Feeds `hex` and returns the next PDU the server sends (on any link), as lowercase hex.
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

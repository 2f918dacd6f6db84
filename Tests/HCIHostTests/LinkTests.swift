import BLECore
import Synchronization
import Testing
@testable import HCI

/// Connection and link events as a controller sends them.
enum Controller {
    static let peer = DeviceAddress(BluetoothAddress("C0:00:00:00:00:C1")!, type: .randomDevice)

    static func connected(_ handle: UInt16, peer: DeviceAddress = peer) -> HCIPacket {
        HCIEvent.le(.connectionComplete(LEConnectionCompleteEvent(handle: handle, role: .peripheral, peer: peer,
                                                                   interval: 24, latency: 0, supervisionTimeout: 500))).packet
    }

    static func disconnected(_ handle: UInt16, reason: HCIStatus = .remoteUserTerminated) -> HCIPacket {
        HCIEvent.disconnectionComplete(HCIDisconnectionCompleteEvent(handle: handle, reason: reason)).packet
    }

    static func encrypted(_ handle: UInt16, keySize: UInt8? = 16) -> HCIPacket {
        HCIEvent.encryptionChange(HCIEncryptionChangeEvent(handle: handle, encryptionEnabled: 1, keySize: keySize)).packet
    }

    /// One ATT PDU in one ACL packet.
    static func att(_ payload: [UInt8], on handle: UInt16) -> HCIPacket {
        let pdu = [UInt8(payload.count), 0, 0x04, 0x00] + payload
        return HCIACLPacket(handle: handle, boundary: .firstFlushable, data: pdu).packet
    }
}

/// What the link table's hooks saw, in order.
final class LinkLog: Sendable {
    let entries = Mutex<[String]>([])
    let links = Mutex<[Link]>([])

    func attach(to table: LinkTable) {
        table.addObserver { change in
            switch change {
            case let .opened(link):
                self.links.withLock { $0.append(link) }
                self.entries.withLock { $0.append("opened \(link.id.rawValue)") }
            case let .closed(link, reason):
                self.entries.withLock { $0.append("closed \(link.id.rawValue) \(reason.rawValue)") }
            }
        }
        table.setDataHandler { link, pdu in
            self.entries.withLock { $0.append("data \(link.id.rawValue) \(pdu.hexString) \(link.security.level)") }
        }
    }

    var all: [String] { entries.withLock { $0 } }
}

@Suite struct LinkLifecycleTests {
    @Test func aLinkExistsBeforeItsFirstPDUAndIsGoneBeforeItsHandleIsReused() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        let log = LinkLog()
        log.attach(to: host.links)
        // Delivered back to back, as the controller sends them, on the transport's context.
        controller.deliver(Controller.connected(0x40))
        controller.deliver(Controller.att([0x0A, 0x03, 0x00], on: 0x40))
        controller.deliver(Controller.disconnected(0x40))
        controller.deliver(Controller.connected(0x40))
        controller.deliver(Controller.att([0x0A, 0x05, 0x00], on: 0x40))
        let links = log.links.withLock { $0 }
        #expect(links.count == 2)
        let (first, second) = (links[0], links[1])
        #expect(first.handle == second.handle)
        #expect(first.id != second.id)
        #expect(!first.isOpen)
        #expect(first.closeReason == .remoteUserTerminated)
        #expect(second.isOpen)
        #expect(host.links.link(handle: 0x40) === second)
        #expect(log.all == [
            "opened \(first.id.rawValue)",
            "data \(first.id.rawValue) 030004000a0300 none",
            "closed \(first.id.rawValue) 19",
            "opened \(second.id.rawValue)",
            "data \(second.id.rawValue) 030004000a0500 none",
        ])
        await host.shutdown()
    }

    @Test func nothingQueuedForAClosedLinkReachesTheNextOneOnItsHandle() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        controller.deliver(Controller.connected(0x40))
        let first = try #require(host.links.link(handle: 0x40))
        // Four credits: four PDUs go, two wait in the ACL queue.
        for _ in 0..<6 { try host.acl.enqueue([0x01, 0x00, 0x04, 0x00, 0x1B], on: first) }
        #expect(host.acl.queuedPDUs(on: first) == 2)
        controller.deliver(Controller.disconnected(0x40))
        #expect(controller.state.withLock { $0.discardedACLHandles } == [0x40])
        #expect(host.acl.availableCredits == 4)
        #expect(throws: ACLSendError.linkClosed(first.id)) { try host.acl.enqueue([0x01, 0x00, 0x04, 0x00, 0x1B], on: first) }
        controller.deliver(Controller.connected(0x40))
        let second = try #require(host.links.link(handle: 0x40))
        #expect(host.acl.queuedPDUs(on: second) == 0)
        #expect(host.acl.packetsInFlight(on: second) == 0)
        let before = controller.acl.count
        controller.deliver(HCIEvent.numberOfCompletedPackets(.init(entries: [.init(handle: 0x40, completed: 4)])).packet)
        // Completions for the new link's handle do not resurrect the old link's queue.
        #expect(controller.acl.count == before)
        await host.shutdown()
    }

    @Test func encryptionRaisesALinksLevelOnlyWithTheKeyItExpects() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        let log = LinkLog()
        log.attach(to: host.links)
        controller.deliver(Controller.connected(0x40))
        let link = try #require(host.links.link(handle: 0x40))
        // The LTK we supplied came from authenticated legacy pairing with a 7-octet key.
        link.expectEncryption(with: EncryptionKeyProperties(keySize: 7, authenticated: true, secureConnections: false))
        controller.deliver(Controller.att([0x0A, 0x03, 0x00], on: 0x40))
        controller.deliver(Controller.encrypted(0x40, keySize: 16))
        controller.deliver(Controller.att([0x0A, 0x04, 0x00], on: 0x40))
        // The key's own size counts, not the 16 the controller reports; the PDU before the change
        // saw no encryption, the one after saw the new level.
        #expect(link.security == LinkSecurity(level: .authenticated, keySize: 7))
        #expect(log.all.filter { $0.hasPrefix("data") } == [
            "data \(link.id.rawValue) 030004000a0300 none",
            "data \(link.id.rawValue) 030004000a0400 authenticated",
        ])
        // A new link on the handle starts unencrypted, and an Encryption Change that was meant for
        // the old link (no key was supplied on this one) cannot raise it.
        controller.deliver(Controller.disconnected(0x40))
        controller.deliver(Controller.connected(0x40))
        let next = try #require(host.links.link(handle: 0x40))
        #expect(next.security == .none)
        controller.deliver(Controller.encrypted(0x40))
        #expect(next.security == .none)
        // Events for a handle with no open link are dropped.
        controller.deliver(Controller.encrypted(0x66))
        #expect(host.links.link(handle: 0x66) == nil)
        await host.shutdown()
    }

    @Test func aCommandForALinkThatClosedWhileItWaitedIsNeverSent() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        controller.deliver(Controller.connected(0x40))
        let link = try #require(host.links.link(handle: 0x40))
        // Hold the credit with another command, queue a Disconnect behind it, then lose the link.
        controller.state.withLock { $0.holdAnswers = true }
        let blocker = Task { try await host.send(HCIReadBDADDR()) }
        await controller.waitForCommand(.readBDADDR, count: 2)
        let disconnect = Task { try await host.disconnect(link) }
        await until { await host.commandQueueDepth.waiting == 1 }
        controller.deliver(Controller.disconnected(0x40, reason: .connectionTimeout))
        controller.deliver(Controller.connected(0x40))
        controller.releaseAnswers()
        _ = try await blocker.value
        await #expect(throws: HCIHostError.linkClosed(.disconnect, link.id)) { try await disconnect.value }
        #expect(!controller.commands.contains(.disconnect))
        await host.shutdown()
    }

    @Test func aLinkWhosePacketsNeverCompleteIsDisconnected() async throws {
        let controller = ScriptedController()
        let clock = ManualClock()
        let host = try await startedHost(controller, clock: clock)
        controller.deliver(Controller.connected(0x40))
        let link = try #require(host.links.link(handle: 0x40))
        try host.acl.enqueue([0x01, 0x00, 0x04, 0x00, 0x1B], on: link)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(10))
        await controller.waitForCommand(.disconnect)
        await host.shutdown()
    }

    @Test func aResetClosesEveryLink() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        let log = LinkLog()
        log.attach(to: host.links)
        controller.deliver(Controller.connected(0x40))
        controller.deliver(Controller.connected(0x41))
        async let recovered = firstEvent(host) { if case .controllerRecovered = $0 { return true } else { return false } }
        controller.deliver(HCIEvent.hardwareError(code: 0x01).packet)
        _ = await recovered
        #expect(host.links.openLinks.isEmpty)
        #expect(log.all.filter { $0.hasPrefix("closed") }.count == 2)
        #expect(log.links.withLock { $0 }.allSatisfy { !$0.isOpen })
        await host.shutdown()
    }
}

import BLECore
import HCI
import L2CAP
import SMP
import Synchronization

/// What a central role running on a peripheral manager's controller shares with it: the host, the
/// one L2CAP instance (each role installs its handlers for its own links) and, when the peripheral
/// has a `SecuritySetup`, its Security Manager (one identity, one bond cache, one set of pairing
/// sessions for both roles). The peripheral manager owns the host: it starts and shuts it down.
///
/// Package-internal: `CentralManager(sharingControllerOf:)` is the public way to use it.
package struct SharedController: Sendable {
    package let host: HCIHost
    package let channels: L2CAPFixedChannels
    package let security: SecurityManager?
    /// The shared Security Manager's events about central links, in order (the peripheral manager
    /// reads the manager's single event stream and passes these on).
    package let securityEvents: AsyncStream<SecurityEvent>?
}

/// The central role plugged into a peripheral manager's Security Manager: it starts encryption on
/// central links and knows our address on them (the peripheral role may advertise another one).
package struct CentralRoleHooks: Sendable {
    package let startEncryption: SecurityManager.StartEncryption
    package let localAddress: @Sendable () -> DeviceAddress

    package init(startEncryption: @escaping SecurityManager.StartEncryption, localAddress: @escaping @Sendable () -> DeviceAddress) {
        self.startEncryption = startEncryption
        self.localAddress = localAddress
    }
}

/// The one central role a peripheral manager's controller may carry, if any.
final class CentralRoleSlot: Sendable {
    private struct Occupant {
        let hooks: CentralRoleHooks
        let events: AsyncStream<SecurityEvent>.Continuation
    }

    private let occupant = Mutex<Occupant?>(nil)

    /// Takes the slot; nil when a central role holds it already.
    func claim(_ hooks: CentralRoleHooks) -> AsyncStream<SecurityEvent>? {
        let (stream, sink) = AsyncStream.makeStream(of: SecurityEvent.self)
        let claimed = occupant.withLock { occupant -> Bool in
            guard occupant == nil else { return false }
            occupant = Occupant(hooks: hooks, events: sink)
            return true
        }
        return claimed ? stream : nil
    }

    func release() {
        occupant.withLock { $0.take() }?.events.finish()
    }

    var hooks: CentralRoleHooks? { occupant.withLock { $0?.hooks } }

    /// Passes an event of a central link on; false when no central role takes it.
    @discardableResult
    func forward(_ event: SecurityEvent) -> Bool {
        guard let sink = occupant.withLock({ $0?.events }) else { return false }
        sink.yield(event)
        return true
    }
}

extension SecurityEvent {
    /// The link the event is about, if any.
    var link: Link? {
        switch self {
        case let .pairingStarted(link, _), let .paired(link, _, _), let .pairingFailed(link, _, _),
             let .bondedPeerConnected(link, _), let .bondNotStored(link, _), let .securityRequested(link, _),
             let .bondTakeoverRefused(link, _):
            return link
        case .bondRemoved:
            return nil
        }
    }
}

extension PeripheralManager {
    /// Lets one central role use this controller; nil when one does already (a second would
    /// replace the first's L2CAP handlers and encryption hooks).
    package nonisolated func shareController(with hooks: CentralRoleHooks) -> SharedController? {
        guard let events = centralRole.claim(hooks) else { return nil }
        // Credits are kept back for every link we may have; the central role's count for one
        // more, so a busy central's links cannot starve a newly connected peripheral link (or the reverse).
        host.acl.reserveCredits(forLinks: configuration.maxConnections + 1)
        return SharedController(host: host, channels: channels, security: security, securityEvents: security == nil ? nil : events)
    }

    /// The central role left: the slot is free again and its credit reserve goes back.
    package nonisolated func releaseController() {
        centralRole.release()
        host.acl.reserveCredits(forLinks: configuration.maxConnections)
    }
}

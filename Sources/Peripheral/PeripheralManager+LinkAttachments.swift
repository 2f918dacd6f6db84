import GATTNotify
import GATTServer
import HCI
import Logging
import SMP

/// The peripheral's per-link state, attached and detached in one place (`LinkAttachments`).
extension PeripheralManager {
    /// In call order. Built per link event (they are rare) from what is published at that moment,
    /// so a link that opens before `publish()` is attached to the server and engine by `publish()`.
    nonisolated func linkAttachments() -> LinkAttachments {
        let served = ServedLink(current: published.withLock { $0 }, logger: logger)
        let steps = ManagerLinkSteps(manager: self)
        let security = security.map { SecurityAttachment(manager: $0) }
        let parameters = parameterRequests.map { ParameterRequestAttachment(requests: $0) }
        let centrals = CentralAttachment(centrals: connectedCentrals)
        return LinkAttachments(
            opening: ([
                // First, so the server's first PDU of a bonded central already sees it bonded.
                security,
                // A link registered once: a second opening of the same link stops here.
                centrals,
                served.server,
                served.engine,
                steps.events,
                parameters,
            ] as [(any LinkAttachment)?]).compactMap { $0 },
            encrypting: ([
                security,
                // Encryption with the bond's key makes the bonded central's stored state live.
                steps.bondedState,
                steps.events,
            ] as [(any LinkAttachment)?]).compactMap { $0 },
            closing: ([
                // A central role sharing the controller tells the Security Manager about its own
                // links; these are the peripheral's.
                security,
                parameters,
                // A link the peripheral never registered has nothing more to detach.
                CentralGate(centrals: connectedCentrals),
                served.server,
                // Its subscriptions go before its queue: removing the queue can wake a streaming
                // application's ready handler, whose updates must no longer be routed to this link.
                SubscriberAttachment(subscribers: subscribers),
                served.engine,
                centrals,
                // The server has dropped the link: what it still waits for from the application fails.
                PendingRequestAttachment(requests: pendingRequests),
                // Its central is away from now on: updates flag it.
                steps.bondedState,
                RoomWaiterAttachment(waiters: roomWaiters),
                steps.events,
            ] as [(any LinkAttachment)?]).compactMap { $0 },
        )
    }
}

struct SecurityAttachment: LinkAttachment {
    let manager: SecurityManager
    func opened(_ link: Link) -> Bool { manager.linkOpened(link); return true }
    func encryptionChanged(_ link: Link, status: HCIStatus) { manager.encryptionChanged(on: link, status: status) }
    func closed(_ link: Link, reason: HCIStatus) -> Bool { manager.linkClosed(link); return true }
}

struct ParameterRequestAttachment: LinkAttachment {
    let requests: ConnectionParameterRequests
    func opened(_ link: Link) -> Bool { requests.linkOpened(link); return true }
    func closed(_ link: Link, reason: HCIStatus) -> Bool { requests.linkClosed(link); return true }
}

/// Registers the link's central on opening and forgets it on closing.
struct CentralAttachment: LinkAttachment {
    let centrals: ConnectedCentrals
    func opened(_ link: Link) -> Bool { centrals.add(ConnectedCentral(link: link)) }
    func closed(_ link: Link, reason: HCIStatus) -> Bool { centrals.remove(link.id); return true }
}

/// Closing goes on only for a link whose central was registered.
struct CentralGate: LinkAttachment {
    let centrals: ConnectedCentrals
    func closed(_ link: Link, reason: HCIStatus) -> Bool { centrals.central(on: link.id) != nil }
}

/// The GATT server and the notification engine of the published database, when there is one.
struct ServedLink {
    let current: PeripheralManager.Published?
    let logger: Logger

    var server: (any LinkAttachment)? { current.map { ServerAttachment(server: $0.server) } }
    var engine: (any LinkAttachment)? { current.map { EngineAttachment(engine: $0.engine, logger: logger) } }
}

struct ServerAttachment: LinkAttachment {
    let server: GATTServer
    func opened(_ link: Link) -> Bool { server.linkOpened(link); return true }
    func closed(_ link: Link, reason: HCIStatus) -> Bool { server.linkClosed(link); return true }
}

struct EngineAttachment: LinkAttachment {
    let engine: NotificationEngine
    let logger: Logger
    func opened(_ link: Link) -> Bool {
        do { try engine.addLink(link) } catch { logger.error("notification queue for \(link.id): \(error)") }
        return true
    }
    func closed(_ link: Link, reason: HCIStatus) -> Bool { engine.removeLink(link.id); return true }
}

struct SubscriberAttachment: LinkAttachment {
    let subscribers: SubscriberTable
    func closed(_ link: Link, reason: HCIStatus) -> Bool { subscribers.remove(link.id); return true }
}

struct PendingRequestAttachment: LinkAttachment {
    let requests: PendingRequests
    func closed(_ link: Link, reason: HCIStatus) -> Bool { requests.failAll(on: link.id); return true }
}

struct RoomWaiterAttachment: LinkAttachment {
    let waiters: LinkRoomWaiters
    func closed(_ link: Link, reason: HCIStatus) -> Bool { waiters.resume(link.id); return true }
}

/// The steps that are the manager's own: its events and the bonded centrals' stored GATT state.
struct ManagerLinkSteps {
    let manager: PeripheralManager

    var events: any LinkAttachment { ApplicationEvents(manager: manager) }
    var bondedState: (any LinkAttachment)? { manager.bondedClients == nil ? nil : BondedStateAttachment(manager: manager) }

    struct ApplicationEvents: LinkAttachment {
        let manager: PeripheralManager
        func opened(_ link: Link) -> Bool { manager.eventSink.yield(.centralConnected(ConnectedCentral(link: link))); return true }
        func encryptionChanged(_ link: Link, status: HCIStatus) {
            if let central = manager.connectedCentrals.central(on: link.id) { manager.eventSink.yield(.securityChanged(central, link.security)) }
        }
        func closed(_ link: Link, reason: HCIStatus) -> Bool {
            manager.eventSink.yield(.centralDisconnected(ConnectedCentral(link: link), reason: reason))
            return true
        }
    }

    struct BondedStateAttachment: LinkAttachment {
        let manager: PeripheralManager
        func encryptionChanged(_ link: Link, status: HCIStatus) {
            if status == .success { manager.restoreBondedState(of: link) }
        }
        func closed(_ link: Link, reason: HCIStatus) -> Bool {
            if manager.bondedClients?.linkClosed(link.id) == true { manager.refreshAwayRoutes() }
            return true
        }
    }
}

import BLECore
import HCI
import SMP

/// What a role gives the stack when it attaches: our address on its links (SMP's c1, f5 and f6
/// take it) and, for the central role, how to start encryption on them.
package struct RoleHooks: Sendable {
    package let localAddress: @Sendable () -> DeviceAddress
    package let startEncryption: SecurityManager.StartEncryption?

    package init(localAddress: @escaping @Sendable () -> DeviceAddress, startEncryption: SecurityManager.StartEncryption? = nil) {
        self.localAddress = localAddress
        self.startEncryption = startEncryption
    }
}

struct AttachedRole: Sendable {
    let hooks: RoleHooks
    /// How many links of this role the ACL credits are kept back for.
    let maxLinks: Int
    let securityEvents: AsyncStream<SecurityEvent>.Continuation
}

extension BLEStack {
    /// Attaches a facade as the stack's `role`; it receives the Security Manager's events about
    /// links of that role. Throws when that role is attached already (a second would take the
    /// first's L2CAP handlers and encryption hooks).
    package func attach(_ role: HCIRole, maxLinks: Int, hooks: RoleHooks) throws(BLEStackError) -> AsyncStream<SecurityEvent> {
        let (stream, sink) = AsyncStream.makeStream(of: SecurityEvent.self)
        let attached = roles.withLock { roles -> Bool in
            guard roles[role] == nil else { return false }
            roles[role] = AttachedRole(hooks: hooks, maxLinks: maxLinks, securityEvents: sink)
            Self.reserveCredits(for: roles, in: host.acl)
            return true
        }
        guard attached else { throw .roleTaken(role) }
        return stream
    }

    /// The role left: its slot is free for another facade and its credit reserve goes back.
    package func detach(_ role: HCIRole) {
        let left = roles.withLock { roles in
            defer { Self.reserveCredits(for: roles, in: host.acl) }
            return roles.removeValue(forKey: role)
        }
        left?.securityEvents.finish()
    }

    /// Puts the reserve back to what the attached roles need, after something else set it (a
    /// `GAPPeripheral` reserves for its own links when it is made).
    package func reserveCreditsForAttachedRoles() {
        roles.withLock { Self.reserveCredits(for: $0, in: host.acl) }
    }

    /// Credits are kept back for every link either role may have, so a busy role's links cannot
    /// starve a newly connected link of the other. Under the roles' lock, so that concurrent
    /// attaches and detaches leave the last total.
    private static func reserveCredits(for roles: [HCIRole: AttachedRole], in acl: ACLFlowController) {
        acl.reserveCredits(forLinks: roles.values.reduce(0) { $0 + $1.maxLinks })
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

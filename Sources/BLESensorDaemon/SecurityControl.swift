import BLECore
import Bonding
import BridgeConfiguration
import ControlSocket
import SMP

/// The control socket's security requests: bonds from the Security Manager's cache, removal
/// through its store, the pairing window through the agent. Everything but `removeBond` reads
/// in-memory state under short locks, so it may run on the control server's thread.
struct SecurityControl: Sendable {
    /// nil when the peripheral runs without one: every request then says so.
    let security: SecurityManager?
    let agent: DaemonPairingAgent
    let centrals: CentralRegistry

    func bonds() -> Result<[BondStatus], SecurityControlError> {
        guard let security else { return .failure(.securityDisabled) }
        let connected = centrals.connectedIdentities
        return .success(security.bonds.map { Self.status($0, connected: connected) })
    }

    /// Resolves the address against the cached bonds, then forgets it in the store (a file write:
    /// callers run this in a task of their own, never on the control server's thread).
    func removeBond(_ address: BondAddress) async -> Result<BondStatus, SecurityControlError> {
        guard let security else { return .failure(.securityDisabled) }
        let bond: Bond
        switch Self.match(address, in: security.bonds) {
        case .success(let found): bond = found
        case .failure(let error): return .failure(error)
        }
        let status = Self.status(bond, connected: centrals.connectedIdentities)
        do {
            // Another client may have removed it since the lookup.
            guard try await security.removeBond(bond.identity) else { return .failure(.notBonded(address)) }
            return .success(status)
        } catch {
            return .failure(.store(error))
        }
    }

    /// `always` needs no window and `never` refuses one: both are answered without opening anything.
    func openPairingWindow(seconds: Int) -> Result<PairingStatus, SecurityControlError> {
        guard security != nil else { return .failure(.securityDisabled) }
        guard ControlProtocol.pairingWindowSeconds.contains(seconds) else { return .failure(.invalidWindow(seconds)) }
        switch agent.settings.pairing {
        case .never: return .failure(.pairingNever)
        case .always: break
        case .window: _ = agent.openWindow(for: .seconds(seconds))
        }
        return .success(pairingStatus(withPasskey: true))
    }

    /// For an administrator (the control server checks): the passkey a central must type.
    func pairingWithPasskey() -> Result<PairingStatus, SecurityControlError> {
        guard security != nil else { return .failure(.securityDisabled) }
        return .success(pairingStatus(withPasskey: true))
    }

    // MARK: For status

    /// nil without security, so status shows nothing rather than "no bonds".
    var bondIdentities: [String]? {
        security.map { $0.bonds.map { $0.identity.bondIdentity.description } }
    }

    /// Never with the passkey: status is for everyone who may reach the socket.
    var pairing: PairingStatus? { security == nil ? nil : pairingStatus(withPasskey: false) }

    private func pairingStatus(withPasskey: Bool) -> PairingStatus {
        let settings = agent.settings
        let mode: PairingStatus.Mode = switch settings.pairing {
        case .always: .always
        case .window: .window
        case .never: .never
        }
        let remaining = settings.pairing == .window ? agent.windowRemaining.map(Self.seconds) : nil
        // Every IO capability but no-input-no-output may meet a central that makes it show or enter one.
        let passkeyMode: PairingStatus.PasskeyMode = switch (settings.ioCapability, settings.passkey) {
        case (.noInputNoOutput, _): .none
        case (_, .fixed): .fixed
        case (_, .random): .random
        }
        let passkey = passkeyMode == .none || !withPasskey ? nil : agent.passkey.map(PairingStatus.passkeyText)
        return PairingStatus(mode: mode, windowRemainingSeconds: remaining, passkeyMode: passkeyMode, passkey: passkey)
    }

    // MARK: Helpers

    /// The one bond an address names: with its type given, exactly that; without, the only bond
    /// with that address (a public and a random address can share the 48 bits).
    static func match(_ address: BondAddress, in bonds: [Bond]) -> Result<Bond, SecurityControlError> {
        guard let bits = BluetoothAddress(address.address) else { return .failure(.notBonded(address)) }
        let candidates = bonds.filter { bond in
            let identity = bond.identity.bondIdentity
            guard identity.address == bits else { return false }
            switch address.kind {
            case nil: return true
            case .public?: return identity.type == .publicDevice
            case .random?: return identity.type == .randomDevice
            }
        }
        guard let first = candidates.first else { return .failure(.notBonded(address)) }
        guard candidates.count == 1 else {
            return .failure(.ambiguous(address, candidates.map { $0.identity.bondIdentity.description }.sorted()))
        }
        return .success(first)
    }

    static func status(_ bond: Bond, connected: Set<DeviceAddress>) -> BondStatus {
        let identity = bond.identity.bondIdentity
        let key = bond.keyProperties
        return BondStatus(address: identity.address.description, addressType: identity.type == .publicDevice ? "public" : "random",
                          keySize: key?.keySize ?? 0, authenticated: key?.authenticated ?? false,
                          secureConnections: key?.secureConnections ?? false, hasIRK: bond.peerIRK != nil,
                          createdAt: bond.createdAt, lastSeen: bond.lastSeen, connected: connected.contains(identity))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// Why a security request was refused; the message goes to the `blesensor` user as it is.
enum SecurityControlError: Error, Equatable, Sendable, CustomStringConvertible {
    case securityDisabled
    case notBonded(BondAddress)
    /// The address without a type names more than one bond.
    case ambiguous(BondAddress, [String])
    case pairingNever
    case invalidWindow(Int)
    case store(BondStoreError)

    var description: String {
        switch self {
        case .securityDisabled:
            return "this blesensord runs without a Security Manager, so it has no bonds and no pairing"
        case let .notBonded(address):
            return "no bond with \(address); `blesensor bonds list` shows the bonded centrals"
        case let .ambiguous(address, identities):
            return "\(address) names \(identities.count) bonds (\(identities.joined(separator: ", "))); add --type public or --type random"
        case .pairingNever:
            return "pairing is turned off (security.pairing: never); set security.pairing to window (or always) in the configuration file and restart blesensord"
        case let .invalidWindow(seconds):
            let range = ControlProtocol.pairingWindowSeconds
            return "a pairing window of \(seconds) s is outside \(range.lowerBound)...\(range.upperBound) s"
        case let .store(error):
            return "the bond was not removed: \(error)"
        }
    }

    var failure: ControlFailure { ControlFailure(description) }
}

import BLECore
import Bonding
import BridgeConfiguration
import Foundation
import Logging
import Peripheral
import SMP
import SQLiteBondStore

/// Turns the configuration's security section into the peripheral's security setup, with the bonds
/// in `<state directory>/bonds.sqlite`.
enum DaemonSecurity {
    static func bondsPath(_ configuration: BridgeConfiguration) -> String {
        PathSettings.bondsDatabase(in: configuration.paths.stateDirectory)
    }

    /// The bond store and what went wrong opening it.
    struct OpenedStore: Sendable {
        let store: SQLiteBondStore
        /// For status and doctor: a corrupt file moved aside, a read-only file system.
        var problems: [String] = []
    }

    /// Opens the bond store (blocking file work, on its own thread). A corrupt file is moved aside
    /// and the daemon starts with an empty store: a missing bond grants nothing, and refusing to
    /// start would take every sensor off the air (and restart for ever) for a file no restart mends.
    /// On a read-only file system the bonds are copied into memory: bonded centrals keep their
    /// encrypted links, and what changes until the next start is lost (and said so).
    static func openStore(_ configuration: BridgeConfiguration, logger: Logger,
                          isReadOnly: @escaping @Sendable (String) -> Bool = BondStoreHealth.isReadOnly) async throws(DaemonError) -> OpenedStore {
        let path = bondsPath(configuration)
        let stateDirectory = configuration.paths.stateDirectory
        let directory = AddressStore(directory: stateDirectory)
        let maximum = configuration.security.maxBonds
        return try await DedicatedThread.run { () throws(DaemonError) -> OpenedStore in
            try directory.makeDirectories()
            if isReadOnly(stateDirectory) {
                // tmpfs (the runtime directory) first: on a read-only root even /tmp may be read-only.
                let scratch = [(configuration.paths.controlSocket as NSString).deletingLastPathComponent, NSTemporaryDirectory()]
                return try inMemory(path, stateDirectory: stateDirectory, maximum: maximum, scratch: scratch, logger: logger)
            }
            do throws(BondStoreError) {
                return OpenedStore(store: try SQLiteBondStore(path: path, maximumBonds: maximum))
            } catch let .corrupt(_, reason) {
                let aside = CorruptFile.moveAside(path, at: Date())
                guard let aside else { throw .bondStore(.corrupt(path: path, reason: reason)) }
                let problem = "\(path) was corrupt (\(reason)); moved to \(aside), started with no bonds: bonded centrals must pair again"
                logger.error("\(problem)")
                do throws(BondStoreError) {
                    return OpenedStore(store: try SQLiteBondStore(path: path, maximumBonds: maximum), problems: [problem])
                } catch { throw .bondStore(error) }
            } catch {
                throw .bondStore(error)
            }
        }
    }

    private static func inMemory(_ path: String, stateDirectory: String, maximum: Int, scratch: [String],
                                 logger: Logger) throws(DaemonError) -> OpenedStore {
        let lost = "new bonds are refused, and subscriptions changed and measurements kept from now on are lost when the "
            + "daemon stops; remount it read-write (or replace the SD card the kernel remounted read-only) and restart "
            + "blesensord. A state directory outside /var/lib/blesensor is read-only for the packaged service "
            + "(ProtectSystem=strict): add it with `systemctl edit blesensord` as ReadWritePaths=DIR"
        do throws(BondStoreError) {
            let store = try SQLiteBondStore.inMemoryCopy(of: path, maximumBonds: maximum, scratchDirectories: scratch)
            let problem = "\(stateDirectory) is on a read-only file system: the bonds in \(path) are kept in memory; " + lost
            logger.error("\(problem)")
            return OpenedStore(store: store, problems: [problem])
        } catch let .corrupt(_, reason) {
            // It cannot be moved aside here: start empty, and leave the file for when it can.
            let problem = "\(stateDirectory) is on a read-only file system and \(path) is corrupt (\(reason)): "
                + "started with no bonds, in memory; " + lost
            logger.error("\(problem)")
            do throws(BondStoreError) {
                return OpenedStore(store: try SQLiteBondStore.emptyInMemory(standingIn: path, maximumBonds: maximum),
                                   problems: [problem])
            } catch { throw .bondStore(error) }
        } catch {
            throw .bondStore(error)
        }
    }

    /// The demo central's bonds, beside the daemon's, so both halves of a bond survive a restart.
    /// Demo only: when the file cannot be opened the demo keeps its bonds in memory and says so.
    static func openDemoCentralStore(_ configuration: BridgeConfiguration, logger: Logger) async -> any BondStore {
        let path = configuration.paths.stateDirectory + "/demo-central-bonds.sqlite"
        let opened = await DedicatedThread.run { () -> Result<SQLiteBondStore, BondStoreError> in
            do throws(BondStoreError) { return .success(try SQLiteBondStore(path: path)) } catch { return .failure(error) }
        }
        switch opened {
        case let .success(store): return store
        case let .failure(error):
            logger.warning("demo central: cannot keep its bonds in \(path) (\(error)); after a restart it will have to pair again")
            return InMemoryBondStore()
        }
    }

    static func managerConfiguration(_ settings: SecuritySettings) -> SecurityManager.Configuration {
        var configuration = SecurityManager.Configuration()
        var policy = SecurityPolicy()
        policy.ioCapability = ioCapability(settings.ioCapability)
        policy.secureConnectionsOnly = settings.secureConnectionsOnly
        policy.minimumKeySize = settings.minimumKeySize
        switch settings.passkey {
        case .random: policy.passkey = .random
        case let .fixed(value): policy.passkey = .fixed(value)
        }
        // Characteristics that need authentication can only be reached with MITM-protected pairing.
        policy.requireMITM = !settings.requireAuthentication.isEmpty && settings.ioCapability != .noInputNoOutput
        configuration.policy = policy
        configuration.maximumBonds = settings.maxBonds
        configuration.bondLimitPolicy = settings.whenFull == .refuseNew ? .refuseNew : .replaceLeastRecentlyUsed
        configuration.allowWeakerRepairing = settings.allowWeakerRepairing
        configuration.sendSecurityRequest = settings.securityRequest
        return configuration
    }

    static func ioCapability(_ setting: SecuritySettings.IOCapabilitySetting) -> IOCapability {
        switch setting {
        case .noInputNoOutput: return .noInputNoOutput
        case .displayOnly: return .displayOnly
        case .displayYesNo: return .displayYesNo
        case .keyboardOnly: return .keyboardOnly
        case .keyboardDisplay: return .keyboardDisplay
        }
    }
}

import BLECore
import GAP
import HCI
import L2CAP
import Logging
import SMP

// The Security Manager of central links: SMP on L2CAP, encryption started through GAP.
extension CentralManager {
    /// The HCI status a failed command carries, for those waiting on the outcome of encryption.
    static func status(of error: GAPError) -> HCIStatus {
        if case let .controller(.commandFailed(_, status)) = error { return status }
        return .unspecifiedError
    }

    /// Starts encryption on a central link through GAP; a failure to start is reported to the
    /// Security Manager at once, as what waits on it must end: the controller never will start it.
    static func encryptionStarter(gap: GAPCentral, security: @escaping @Sendable () -> SecurityManager?,
                                  logger: Logger) -> SecurityManager.StartEncryption {
        { link, key, random, ediv, properties in
            Task {
                do throws(GAPError) {
                    try await gap.startEncryption(on: link, key: key, random: random, ediv: ediv, properties: properties)
                } catch {
                    logger.warning("\(link.id): starting encryption failed: \(error)")
                    security()?.encryptionChanged(on: link, status: status(of: error))
                }
            }
        }
    }

    /// The Security Manager of central links: SMP on L2CAP, encryption started through GAP.
    static func makeSecurityManager(_ setup: SecuritySetup, configuration: Configuration, channels: L2CAPFixedChannels,
                                            gap: GAPCentral, localAddress: Locked<DeviceAddress>, logger: Logger) -> SecurityManager {
        var managerConfiguration = setup.configuration
        if !configuration.answersSecurityRequests { managerConfiguration.respondToSecurityRequests = .ignore }
        // The encryption-start closure needs the manager it is given to.
        let built = Locked<SecurityManager?>(nil)
        let manager = SecurityManager(
            configuration: managerConfiguration, store: setup.store, agent: setup.agent, clock: configuration.clock,
            localAddress: { _ in localAddress.value },
            send: { link, pdu in channels.sendSecurityManagerPDU(pdu, on: link) }, logger: logger,
            startEncryption: encryptionStarter(gap: gap, security: { built.value }, logger: logger))
        built.withLock { $0 = manager }
        return manager
    }
}

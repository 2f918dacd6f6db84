import BLECore
import GAP
import HCI
import L2CAP
import Logging
import SMP

// Encryption of central links, which the stack's Security Manager asks GAP for through us.
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
}

import HCI
import Logging

/// The optional procedures both roles run on a new link: read the peer's version and ask for the
/// largest LE data length, each only when the controller supports it.
enum LinkSetup {
    static func start(on link: Link, host: HCIHost, readRemoteVersion: Bool, requestMaximumDataLength: Bool, logger: Logger) {
        Task {
            guard let info = await host.controllerInfo else { return }
            let wantVersion = readRemoteVersion && info.supports(.readRemoteVersionInformation)
            let wantLength = requestMaximumDataLength && info.supportsDataLengthExtension && info.supports(.leSetDataLength)
            let length = host.configuration.suggestedDataLength
            do {
                if wantVersion { _ = try await host.send(HCIReadRemoteVersionInformation(handle: link.handle), for: link) }
                if wantLength { _ = try await host.send(HCILESetDataLength(handle: link.handle, txOctets: length.octets, txTime: length.time), for: link) }
            } catch {
                // Optional procedures: a refusal (e.g. the link already dropped) is not an error for the user.
                logger.debug("\(link.id) setup: \(error)")
            }
        }
    }
}

import BLECore
import Dispatch
import HCI
import Logging

/// The shared medium that virtual controllers and scripted centrals join.
///
/// All state of the radio and of everything on it lives on one serial queue, so the interleaving of
/// every controller's actions is totally ordered and a test run is deterministic.
public final class VirtualRadio: @unchecked Sendable {
    // @unchecked: every mutable property below is only touched on `queue`.
    let queue: DispatchQueue
    let logger: Logger
    private var controllers: [VirtualController] = []
    private var scanners: [RadioScanner] = []
    private var initiators: [RadioInitiator] = []

    public init(label: String = "virtual-radio", logger: Logger = Logger(label: "blesensor.virtual-radio")) {
        queue = DispatchQueue(label: label)
        self.logger = logger
    }

    /// Adds a controller to the radio. It starts powered, as after Reset, and waits for its host to open it.
    public func makeController(configuration: VirtualController.Configuration) -> VirtualController {
        let controller = VirtualController(radio: self, configuration: configuration)
        queue.sync { controllers.append(controller) }
        return controller
    }

    /// Adds a scripted central (no HCI host) that scans and connects through async calls.
    public func makeCentral(address: DeviceAddress) -> VirtualCentral {
        VirtualCentral(radio: self, address: address)
    }

    // MARK: - Membership (radio queue)

    func remove(_ controller: VirtualController) {
        controllers.removeAll { $0 === controller }
    }

    // MARK: - Advertising and scanning (radio queue)

    /// Every advertisement on the air right now.
    func currentAdvertisements() -> [Advertisement] {
        controllers.compactMap { $0.currentAdvertisement() }
    }

    func startScanning(_ scanner: RadioScanner) {
        if !scanners.contains(where: { $0 === scanner }) { scanners.append(scanner) }
        for advertisement in currentAdvertisements() { deliver(advertisement, to: scanner) }
    }

    func stopScanning(_ scanner: RadioScanner) {
        scanners.removeAll { $0 === scanner }
    }

    /// Sends one advertising event to every scanner that can hear it.
    func broadcast(_ advertisement: Advertisement) {
        for scanner in scanners { deliver(advertisement, to: scanner) }
    }

    private func deliver(_ advertisement: Advertisement, to scanner: RadioScanner) {
        if let target = advertisement.target, !scanner.scannerAddresses.contains(target) { return }
        scanner.hear(advertisement)
    }

    /// An advertiser became connectable (or changed): pending initiators targeting it connect now.
    func advertiserChanged(_ advertiser: VirtualController) {
        guard let advertisement = advertiser.currentAdvertisement(), advertisement.isConnectable else { return }
        for initiator in initiators where initiator.initiatorTarget == advertisement.address {
            if let target = advertisement.target, target != initiator.initiatorAddress { continue }
            if connect(initiator, to: advertiser) { return }
        }
    }

    // MARK: - Connections (radio queue)

    /// Registers an initiator; connects at once when its target is advertising connectably.
    func startInitiating(_ initiator: RadioInitiator) {
        for controller in controllers {
            guard let advertisement = controller.currentAdvertisement(), advertisement.isConnectable,
                  advertisement.address == initiator.initiatorTarget else { continue }
            if let target = advertisement.target, target != initiator.initiatorAddress { continue }
            if connect(initiator, to: controller) { return }
        }
        initiators.append(initiator)
    }

    func stopInitiating(_ initiator: RadioInitiator) {
        initiators.removeAll { $0 === initiator }
    }

    /// Establishes a link; false when either side has no room for it.
    private func connect(_ initiator: RadioInitiator, to advertiser: VirtualController) -> Bool {
        guard let peripheralAddress = advertiser.currentAdvertisement()?.address,
              let peripheralHandle = advertiser.reserveHandle() else { return false }
        guard let centralHandle = initiator.reserveHandle() else {
            advertiser.releaseHandle(peripheralHandle)
            return false
        }
        stopInitiating(initiator)
        let link = RadioLink(central: initiator, peripheral: advertiser, centralHandle: centralHandle,
                             peripheralHandle: peripheralHandle, centralAddress: initiator.initiatorAddress,
                             peripheralAddress: peripheralAddress, parameters: initiator.initiatorParameters,
                             centralMaxTx: initiator.initialMaxTx, peripheralMaxTx: advertiser.initialMaxTx)
        logger.debug("link up: \(initiator.initiatorAddress) → \(peripheralAddress)")
        initiator.connected(link)
        advertiser.acceptedConnection(link)
        return true
    }

    /// Tears a link down: `initiator` (if any) terminated it locally, the other side hears `reason`.
    func terminate(_ link: RadioLink, initiator: LinkEndpoint?, reason: HCIStatus) {
        guard link.isUp else { return }
        link.isUp = false
        link.pendingEncryption = nil
        link.pendingParameterRequest = nil
        if let initiator {
            initiator.link(link, disconnectedWith: .localHostTerminated)
            link.peer(of: initiator).link(link, disconnectedWith: reason)
        } else {
            link.central.link(link, disconnectedWith: reason)
            link.peripheral.link(link, disconnectedWith: reason)
        }
    }

    /// One side vanished (reset, closed, lost): only the other side learns of it, by supervision timeout.
    func vanish(_ endpoint: LinkEndpoint, from link: RadioLink) {
        guard link.isUp else { return }
        link.isUp = false
        link.pendingEncryption = nil
        link.peer(of: endpoint).link(link, disconnectedWith: .connectionTimeout)
    }
}

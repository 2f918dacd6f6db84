import ATT
import BLECore
import GAP
import GATT
import GATTClient
import GATTServer
import HCI
import L2CAP
import Logging
import SMP

// Per-link set-up and the events of the layers below.
extension CentralManager {
    /// ATT PDUs go to the link's client (responses, notifications, indications) or to our small
    /// server (requests and commands the peripheral sends us); SMP to the Security Manager.
    nonisolated func wireChannels() {
        let peripherals = peripherals, server = localServer
        // Our links only: on a shared controller the peripheral role serves its own.
        channels.setHandler(for: L2CAPChannelID.attribute, role: .central) { link, payload in
            if GATTClient.isClientBound(payload) {
                peripherals.withLock { $0[link.id] }?.gatt.receive(payload)
            } else {
                server?.receive(payload, on: link)
            }
        }
        // SMP goes to the stack's Security Manager, which the stack routes to for both roles.
    }

    /// Run synchronously in the host's inbound order, so the first PDU of a new link finds its client.
    nonisolated func linkChanged(_ change: LinkChange) {
        guard link(of: change).role == .central else { return }
        switch change {
        case let .opened(link):
            guard !detached.value else { return }
            security?.linkOpened(link)
            let gatt = GATTClient(link: link, configuration: .init(transactionTimeout: configuration.transactionTimeout,
                                                                   clock: configuration.clock, rxMTU: configuration.mtu),
                                  output: stack.attBearer, logger: logger)
            let peripheral = RemotePeripheral(link: link, gatt: gatt, gap: gap, security: security, roomWaiters: roomWaiters)
            peripherals.withLock { $0[link.id] = peripheral }
            localServer?.linkOpened(link)
            let sink = eventSink
            Task { [weak self] in
                for await event in gatt.events { await self?.clientEvent(event, of: peripheral) }
                _ = sink
            }
            eventSink.yield(.connected(peripheral))
        case let .closed(link, reason):
            security?.linkClosed(link)
            guard let peripheral = peripherals.withLock({ $0.removeValue(forKey: link.id) }) else { return }
            localServer?.linkClosed(link)
            peripheral.gatt.linkClosed()
            peripheral.closed(reason: reason)
            roomWaiters.resume(link.id)
            eventSink.yield(.disconnected(peripheral, reason: reason))
        }
    }

    private nonisolated func link(of change: LinkChange) -> Link {
        switch change {
        case let .opened(link), let .closed(link, _): return link
        }
    }

    /// The GAP and GATT services every device serves; a central has nothing else to offer.
    static func makeLocalServer(deviceName: String, mtu: Int, output: ATTBearer, logger: Logger) -> GATTServer? {
        let database: AttributeDatabase
        do {
            database = try AttributeDatabaseBuilder(builtInServices: BuiltInServices(deviceName: deviceName)).build()
        } catch {
            logger.error("our GAP/GATT services could not be built (\(error)); peripherals' requests go unanswered")
            return nil
        }
        var serverConfiguration = GATTServer.Configuration()
        serverConfiguration.mtu = mtu
        return GATTServer(database: database, configuration: serverConfiguration, delegate: BuiltInOnlyDelegate(), logger: logger,
                          output: output)
    }

    // MARK: Events from below

    func handle(_ event: GAPCentralEvent) {
        if let lifecycle = event.lifecycle {
            // Resets and the end of the controller: the state follows, and a loss ends the events.
            if let loss = lifecycle.loss { eventSink.yield(.controllerLost(loss)) }
            setState(lifecycle.state)
            if lifecycle.loss != nil { eventSink.finish() }
            return
        }
        switch event {
        case let .scanReport(report):
            reportToFinders(report)
            if isScanning, scanFilter.isEmpty || report.advertisesAny(of: scanFilter) { eventSink.yield(.discovered(report)) }
        case let .scanningFailed(error):
            logger.warning("scanning stopped: \(error)")
        case let .encryptionChanged(link, status):
            security?.encryptionChanged(on: link, status: status)
            if let peripheral = peripherals.withLock({ $0[link.id] }) {
                eventSink.yield(.securityChanged(peripheral, link.security))
            }
        case .connected, .disconnected, .connectionUpdated, .dataLengthChanged, .remoteVersion,
             .controllerResetting, .controllerRecovered, .controllerFailed, .transportClosed:
            // Links are followed synchronously through the link table (`linkChanged`).
            break
        }
    }

    func handle(_ event: SecurityEvent) {
        switch event {
        case let .paired(link, _, bonded):
            if let peripheral = peripherals.withLock({ $0[link.id] }) { eventSink.yield(.paired(peripheral, bonded: bonded)) }
        case let .pairingFailed(link, reason, _):
            if let peripheral = peripherals.withLock({ $0[link.id] }) { eventSink.yield(.pairingFailed(peripheral, reason)) }
        case let .securityRequested(link, _):
            // The Security Manager answers by itself (re-encrypt or pair) unless told to ignore them.
            if let peripheral = peripherals.withLock({ $0[link.id] }) { eventSink.yield(.securityRequested(peripheral)) }
        case let .bondTakeoverRefused(link, _):
            if let peripheral = peripherals.withLock({ $0[link.id] }) { Task { await peripheral.disconnect(reason: .authenticationFailure) } }
        default:
            break
        }
    }

    func clientEvent(_ event: GATTClientEvent, of peripheral: RemotePeripheral) {
        switch event {
        case let .servicesChanged(range):
            eventSink.yield(.servicesChanged(peripheral, range))
        case let .transactionTimedOut(opcode):
            logger.error("\(peripheral.link.id): \(opcode) got no answer within the ATT transaction timeout; disconnecting")
            Task { await peripheral.disconnect() }
        case let .malformedPDU(reason):
            logger.warning("\(peripheral.link.id): malformed ATT PDU from the peripheral: \(reason)")
        case let .indicationDropped(handle):
            logger.warning("\(peripheral.link.id): an indication of handle 0x\(String(handle, radix: 16)) was confirmed but dropped: the application is not reading updates")
        }
    }
}

/// The delegate of a server with only the built-in services: they are served by the server itself,
/// so nothing reaches here but bookkeeping.
final class BuiltInOnlyDelegate: GATTServerDelegate {
    func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode> { .failure(.readNotPermitted) }
    func write(_ items: [GATTWriteItem], link: Link, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode> { .failure(.writeNotPermitted) }
    func subscriptionChanged(link: Link, characteristic: CharacteristicID, configuration: ClientConfiguration) {}
    func indicationConfirmed(link: Link) -> UInt16? { nil }
    func mtuChanged(link: Link, mtu: Int) {}
}

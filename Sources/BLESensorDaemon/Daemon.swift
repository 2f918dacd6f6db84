import BLECore
import GAP
import HCI
import HCITransports
import L2CAP
import Logging

/// `blesensord`: brings the controller up, advertises, reports connections, and shuts down cleanly.
public struct Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let logger: Logger
    public var resolver = TransportResolver()

    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    enum Outcome {
        case stopRequested
        case linkLost(HCITransportError?)
        case controllerFailed(HCIHostError)
    }

    /// Runs until a signal (exit code 0) or a fatal controller problem (exit code 1).
    /// A signal cancels whatever phase is running, including waiting for a controller to appear.
    public func run(started: ContinuousClock.Instant = .now) async -> Int32 {
        let signals = SignalStream.make()
        let service = Task { await serve(started: started) }
        let watcher = Task { [logger] in
            for await number in signals {
                logger.info("received signal \(number), shutting down")
                service.cancel()
                break
            }
        }
        let code = await service.value
        watcher.cancel()
        return code
    }

    private func serve(started: ContinuousClock.Instant) async -> Int32 {
        do {
            let resolved = try resolver.resolve(configuration.transport, logger: logger)
            var transport = resolved.transport
            if let path = configuration.btsnoopPath {
                do {
                    transport = try SnoopingTransport(wrapping: transport, path: path, logger: logger)
                } catch {
                    throw DaemonError.transport(error)
                }
                logger.info("writing HCI trace to \(path) (btsnoop, opens in Wireshark)")
            }
            let addressPolicy = try addressPolicy()
            logger.info("connecting to controller over \(resolved.specification)")
            let host = HCIHost(transport: transport, logger: logger)
            let info: ControllerInfo
            do {
                info = try await host.start()
            } catch {
                if Task.isCancelled {
                    logger.info("stopped before the controller was ready")
                    await host.shutdown()
                    return 0
                }
                throw DaemonError.controller(error)
            }

            let gap = GAPPeripheral(host: host, configuration: .init(
                addressPolicy: addressPolicy, maxConnections: configuration.maxConnections,
                advertisingInterval: configuration.advertisingInterval), logger: logger)
            let channels = L2CAPFixedChannels(acl: host.acl, logger: logger)
            channels.attach(to: host.links)
            do {
                try await gap.start()
                try await gap.startAdvertising(AdvertisingContent(localName: configuration.localName, serviceUUIDs: configuration.serviceUUIDs))
            } catch {
                await host.shutdown()
                throw DaemonError.peripheral(error)
            }
            let address = addressPolicy == .publicAddress ? "\(info.publicAddress) (public)" : "\(addressPolicyAddress(addressPolicy)) (random static)"
            logger.info("advertising as '\(configuration.localName)' from \(address), ready in \(milliseconds(since: started)) ms")

            var demo: Task<Void, Never>? = nil
            if let radio = resolved.radio {
                let central = DemoCentral(radio: radio, peripheralName: configuration.localName, logger: logger)
                demo = Task { await central.run() }
            }
            let outcome = await waitForOutcome(gap: gap)
            demo?.cancel()
            switch outcome {
            case .stopRequested:
                await shutdown(gap: gap, host: host)
                logger.info("stopped")
                return 0
            case let .linkLost(error):
                logger.error("controller link lost\(error.map { ": \($0)" } ?? ""); exiting so the service manager can restart the daemon")
                await host.shutdown()
                return 1
            case let .controllerFailed(.transport(error)):
                // A stall that resets did not cure: "controller link stalled: …".
                logger.error("\(error); resets did not help, exiting so the service manager can restart the daemon")
                await host.shutdown()
                return 1
            case let .controllerFailed(error):
                logger.error("controller unusable after repeated resets: \(error)")
                await host.shutdown()
                return 1
            }
        } catch let error as DaemonError {
            logger.error("\(error)")
            return 1
        } catch {
            logger.error("\(error)")
            return 1
        }
    }

    private func addressPolicy() throws(DaemonError) -> AddressPolicy {
        switch configuration.addressMode {
        case .publicAddress: return .publicAddress
        case let .fixedRandom(address): return .randomStatic(address)
        case .persistentRandom:
            return .randomStatic(try AddressStore(directory: configuration.stateDirectory).loadOrCreate())
        }
    }

    private func addressPolicyAddress(_ policy: AddressPolicy) -> String {
        if case let .randomStatic(address) = policy { return address.description }
        return "public"
    }

    /// Logs peripheral events until the controller goes away or the task is cancelled by a signal.
    private func waitForOutcome(gap: GAPPeripheral) async -> Outcome {
        for await event in gap.events {
            switch event {
            case let .transportClosed(error): return .linkLost(error)
            case let .controllerFailed(error): return .controllerFailed(error)
            case let .controllerResetting(reason): logger.warning("controller is being reset: \(reason)")
            case .controllerRecovered: logger.notice("controller recovered; advertising restored")
            case let .dataLengthChanged(link):
                let length = link.dataLength
                logger.debug("data length \(length.maxTxOctets)/\(length.maxRxOctets) octets on \(link.id)")
            case let .remoteVersion(link):
                if let version = link.remoteVersion {
                    logger.debug("central on \(link.id) runs LL version \(version.version), manufacturer 0x\(String(version.manufacturer, radix: 16))")
                }
            default: break
            }
        }
        return Task.isCancelled ? .stopRequested : .linkLost(nil)
    }

    /// Stops advertising and disconnects, but never lets a silent controller hold up the exit.
    /// Runs in its own task: the caller was cancelled by the signal, and this work must not be.
    private func shutdown(gap: GAPPeripheral, host: HCIHost) async {
        await Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await gap.shutdown() }
                group.addTask { try? await Task.sleep(for: .seconds(2)) }
                await group.next()
                group.cancelAll()
            }
            await host.shutdown()
        }.value
    }

    private func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.wholeMilliseconds)
    }
}

import BLECore
import HCI
import Logging

/// The LE peripheral role of GAP: advertising with resume after disconnection while connection slots
/// remain, connection tracking, and the per-connection procedures a peripheral runs on connect.
///
/// Calling context: an actor; it is the single consumer of `HCIHost.events`. L2CAP PDUs from
/// connections are handed to `dataHandler`, which the L2CAP layer installs.
public actor GAPPeripheral {
    public struct Configuration: Sendable {
        public var addressPolicy: AddressPolicy
        /// Simultaneous centrals; advertising pauses while all slots are used.
        public var maxConnections: Int
        public var advertisingInterval: Duration
        /// Ask for the largest LE data length on each new connection.
        public var requestMaximumDataLength: Bool
        public var readRemoteVersion: Bool

        public init(addressPolicy: AddressPolicy = .publicAddress, maxConnections: Int = 1,
                    advertisingInterval: Duration = .milliseconds(100), requestMaximumDataLength: Bool = true,
                    readRemoteVersion: Bool = true) {
            self.addressPolicy = addressPolicy
            self.maxConnections = maxConnections
            self.advertisingInterval = advertisingInterval
            self.requestMaximumDataLength = requestMaximumDataLength
            self.readRemoteVersion = readRemoteVersion
        }
    }

    /// Supplies the long-term key for an encryption request; `nil` answers with a negative reply.
    public typealias LongTermKeyProvider = @Sendable (LEConnection, _ random: UInt64, _ ediv: UInt16) async -> [UInt8]?

    public nonisolated let host: HCIHost
    public nonisolated let events: AsyncStream<GAPEvent>
    public nonisolated let configuration: Configuration

    private let eventSink: AsyncStream<GAPEvent>.Continuation
    private let logger: Logger
    private var started = false
    private var desiredAdvertising: AdvertisingContent? = nil
    private var currentPlan: AdvertisingPlan? = nil
    private var advertisingEnabled = false
    private var connections: [UInt16: LEConnection] = [:]
    private var eventTask: Task<Void, Never>? = nil
    private var dataHandler: (@Sendable (UInt16, [UInt8]) -> Void)? = nil
    private var connectionObserver: (@Sendable (ConnectionChange) -> Void)? = nil
    private var longTermKeyProvider: LongTermKeyProvider? = nil

    public init(host: HCIHost, configuration: Configuration, logger: Logger = Logger(label: "blesensor.gap")) {
        self.host = host
        self.configuration = configuration
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: GAPEvent.self)
        host.acl.reserveCredits(forConnections: configuration.maxConnections)
    }

    /// Applies the address policy and starts consuming host events. Call once the host is started.
    public func start() async throws(GAPError) {
        guard !started else { return }
        started = true
        try await applyAddress()
        eventTask = Task { [weak self, host] in
            for await event in host.events {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    public func setDataHandler(_ handler: @escaping @Sendable (UInt16, [UInt8]) -> Void) {
        dataHandler = handler
    }

    /// Called synchronously, in event order, when a link opens or closes: before any L2CAP data of
    /// a new link reaches the data handler, and after the last data of a closed one. Upper layers
    /// set up per-connection state here so no early PDU is lost.
    public func setConnectionObserver(_ observer: @escaping @Sendable (ConnectionChange) -> Void) {
        connectionObserver = observer
    }

    public func setLongTermKeyProvider(_ provider: @escaping LongTermKeyProvider) {
        longTermKeyProvider = provider
    }

    public var activeConnections: [LEConnection] { connections.values.sorted { $0.handle < $1.handle } }
    public var isAdvertising: Bool { advertisingEnabled }
    public var advertisingPlan: AdvertisingPlan? { currentPlan }

    /// The address centrals see.
    public var identityAddress: DeviceAddress? {
        switch configuration.addressPolicy {
        case let .randomStatic(address): return DeviceAddress(address, type: .randomDevice)
        case .publicAddress:
            return nil
        }
    }

    // MARK: Advertising

    /// Places the content (see `AdvertisingPlanner`) and advertises it, connectable and undirected.
    /// Advertising then resumes by itself after each disconnection while connection slots remain.
    @discardableResult
    public func startAdvertising(_ content: AdvertisingContent) async throws(GAPError) -> AdvertisingPlan {
        guard started else { throw .notStarted }
        let plan: AdvertisingPlan
        do { plan = try AdvertisingPlanner.plan(content) } catch { throw .advertisingData(error) }
        if !plan.omittedServiceUUIDs.isEmpty {
            logger.warning("service UUIDs did not fit in the advertising data or scan response and are not advertised: \(plan.omittedServiceUUIDs.map(\.description).joined(separator: ", "))")
        }
        if plan.nameShortened {
            logger.notice("local name is advertised shortened: it does not fit a 31-byte packet")
        }
        desiredAdvertising = content
        currentPlan = plan
        try await applyAdvertising()
        return plan
    }

    public func stopAdvertising() async throws(GAPError) {
        desiredAdvertising = nil
        guard advertisingEnabled else { return }
        do {
            _ = try await host.send(HCILESetAdvertisingEnable(enable: false))
        } catch {
            throw .controller(error)
        }
        advertisingEnabled = false
        logger.info("advertising disabled")
        eventSink.yield(.advertisingStopped)
    }

    public func disconnect(_ handle: UInt16, reason: HCIStatus = .remoteUserTerminated) async throws(GAPError) {
        guard connections[handle] != nil else { throw .unknownConnection(handle) }
        do {
            _ = try await host.send(HCIDisconnect(handle: handle, reason: reason))
        } catch {
            throw .controller(error)
        }
    }

    /// Stops advertising and disconnects every central; used before an orderly shutdown.
    public func shutdown() async {
        try? await stopAdvertising()
        for handle in connections.keys {
            _ = try? await host.send(HCIDisconnect(handle: handle, reason: .remotePowerOff))
        }
    }

    private var advertisingIntervalUnits: UInt16 {
        let milliseconds = configuration.advertisingInterval.milliseconds
        return UInt16(clamping: Int((milliseconds / 0.625).rounded()))
    }

    private func applyAddress() async throws(GAPError) {
        if case let .randomStatic(address) = configuration.addressPolicy {
            do {
                _ = try await host.send(HCILESetRandomAddress(address: address))
            } catch {
                throw .controller(error)
            }
        }
    }

    private func applyAdvertising() async throws(GAPError) {
        guard let plan = currentPlan, desiredAdvertising != nil else { return }
        guard (20...10_240).contains(Double(advertisingIntervalUnits) * 0.625) else {
            throw .invalidAdvertisingInterval(milliseconds: Double(advertisingIntervalUnits) * 0.625)
        }
        guard connections.count < configuration.maxConnections else {
            logger.info("advertising paused: \(connections.count) of \(configuration.maxConnections) connection slots in use")
            return
        }
        do {
            if advertisingEnabled {
                _ = try await host.send(HCILESetAdvertisingEnable(enable: false))
                advertisingEnabled = false
            }
            _ = try await host.send(HCILESetAdvertisingParameters(
                intervalMin: advertisingIntervalUnits, intervalMax: advertisingIntervalUnits,
                type: .connectableUndirected, ownAddressType: configuration.addressPolicy.ownAddressType))
            if let data = LELegacyAdvertisingPayload(plan.advertisingData),
               let scanResponse = LELegacyAdvertisingPayload(plan.scanResponseData) {
                _ = try await host.send(HCILESetAdvertisingData(payload: data))
                _ = try await host.send(HCILESetScanResponseData(payload: scanResponse))
            }
            _ = try await host.send(HCILESetAdvertisingEnable(enable: true))
        } catch {
            throw .controller(error)
        }
        advertisingEnabled = true
        logger.info("advertising enabled (\(connections.count)/\(configuration.maxConnections) connected)")
        eventSink.yield(.advertisingStarted(plan))
    }

    /// Resumes advertising after a connection slot frees up or the controller recovers.
    private func resumeAdvertising() {
        guard desiredAdvertising != nil, !advertisingEnabled, connections.count < configuration.maxConnections else { return }
        Task {
            do {
                try await self.applyAdvertising()
            } catch {
                self.logger.error("could not resume advertising: \(error)")
            }
        }
    }

    // MARK: Host events

    private func handle(_ event: HCIHostEvent) {
        switch event {
        case let .controllerEvent(controllerEvent):
            handleControllerEvent(controllerEvent)
        case let .aclData(handle, pdu):
            if let dataHandler {
                dataHandler(handle, pdu)
            } else {
                logger.debug("no L2CAP layer attached; dropping \(pdu.count) bytes from 0x\(String(handle, radix: 16))")
            }
        case let .controllerResetting(reason):
            for connection in activeConnections {
                connectionObserver?(.closed(connection, reason: .hardwareFailure))
                eventSink.yield(.disconnected(connection, reason: .hardwareFailure))
            }
            connections.removeAll()
            advertisingEnabled = false
            eventSink.yield(.controllerResetting(reason))
        case let .controllerRecovered(info):
            eventSink.yield(.controllerRecovered(info))
            Task {
                do {
                    try await self.applyAddress()
                    try await self.applyAdvertising()
                } catch {
                    self.logger.error("could not restore advertising after the controller reset: \(error)")
                }
            }
        case let .controllerFailed(error):
            advertisingEnabled = false
            eventSink.yield(.controllerFailed(error))
        case let .transportClosed(error):
            advertisingEnabled = false
            eventSink.yield(.transportClosed(error))
            eventSink.finish()
        }
    }

    private func handleControllerEvent(_ event: HCIEvent) {
        switch event {
        case let .le(.connectionComplete(complete)):
            guard complete.status.isSuccess else {
                logger.info("connection attempt failed: \(complete.status)")
                return
            }
            let connection = LEConnection(complete)
            connections[connection.handle] = connection
            // Legacy advertising stops when a connection is created from it.
            if complete.role == .peripheral { advertisingEnabled = false }
            logger.info("central connected: \(connection)")
            connectionObserver?(.opened(connection))
            eventSink.yield(.connected(connection))
            startConnectionProcedures(connection.handle)
            resumeAdvertising()
        case let .disconnectionComplete(complete):
            guard complete.status.isSuccess, let connection = connections.removeValue(forKey: complete.handle) else { return }
            logger.info("central disconnected: \(connection.peer) reason \(complete.reason)")
            connectionObserver?(.closed(connection, reason: complete.reason))
            eventSink.yield(.disconnected(connection, reason: complete.reason))
            resumeAdvertising()
        case let .le(.connectionUpdateComplete(update)):
            guard update.status.isSuccess, var connection = connections[update.handle] else { return }
            connection.interval = update.interval
            connection.latency = update.latency
            connection.supervisionTimeout = update.supervisionTimeout
            connections[update.handle] = connection
            eventSink.yield(.connectionUpdated(connection))
        case let .le(.dataLengthChange(change)):
            guard var connection = connections[change.handle] else { return }
            connection.maxTxOctets = change.maxTxOctets
            connection.maxRxOctets = change.maxRxOctets
            connections[change.handle] = connection
            eventSink.yield(.dataLengthChanged(connection))
        case let .encryptionChange(change):
            guard var connection = connections[change.handle] else { return }
            if change.status.isSuccess {
                connection.encrypted = change.encryptionEnabled != 0
                connection.encryptionKeySize = change.keySize
                connections[change.handle] = connection
            }
            eventSink.yield(.encryptionChanged(connection, status: change.status))
        case let .readRemoteVersionComplete(version):
            guard version.status.isSuccess, var connection = connections[version.handle] else { return }
            connection.remoteVersion = version
            connections[version.handle] = connection
            eventSink.yield(.remoteVersion(connection))
        case let .le(.longTermKeyRequest(request)):
            answerLongTermKeyRequest(request)
        case let .le(.remoteConnectionParameterRequest(request)):
            // The central knows its scheduling constraints; accept what it asks for.
            Task {
                _ = try? await self.host.send(HCILERemoteConnectionParameterRequestReply(handle: request.handle, parameters: request.parameters))
            }
        default:
            logger.trace("unhandled event \(event)")
        }
    }

    private func answerLongTermKeyRequest(_ request: LELongTermKeyRequestEvent) {
        let connection = connections[request.handle]
        let provider = longTermKeyProvider
        Task {
            var key: [UInt8]? = nil
            if let provider, let connection { key = await provider(connection, request.random, request.ediv) }
            do {
                if let key {
                    _ = try await self.host.send(HCILELongTermKeyRequestReply(handle: request.handle, longTermKey: key))
                } else {
                    _ = try await self.host.send(HCILELongTermKeyRequestNegativeReply(handle: request.handle))
                }
            } catch {
                self.logger.warning("could not answer the long term key request: \(error)")
            }
        }
    }

    private func startConnectionProcedures(_ handle: UInt16) {
        let configuration = configuration
        Task {
            guard let info = await self.host.controllerInfo else { return }
            let wantVersion = configuration.readRemoteVersion && info.supports(.readRemoteVersionInformation)
            let wantLength = configuration.requestMaximumDataLength && info.supportsDataLengthExtension && info.supports(.leSetDataLength)
            let length = self.host.configuration.suggestedDataLength
            do {
                if wantVersion { _ = try await self.host.send(HCIReadRemoteVersionInformation(handle: handle)) }
                if wantLength { _ = try await self.host.send(HCILESetDataLength(handle: handle, txOctets: length.octets, txTime: length.time)) }
            } catch {
                // Optional procedures: a refusal (e.g. the link already dropped) is not an error for the user.
                self.logger.debug("connection 0x\(String(handle, radix: 16)) setup: \(error)")
            }
        }
    }
}

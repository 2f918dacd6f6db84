import BLECore
import HCI
import Logging

/// The LE central role of GAP: scanning (with scan responses merged and optional host-side
/// duplicate filtering), connection establishment with timeout and cancellation, encryption start
/// with a known key, and the per-link procedures a central runs on connect.
///
/// Calling context: an actor with its own host event stream (`HCIHost.makeEventStream()`), so it
/// shares a host with `GAPPeripheral`; it acts only on links where we are the central.
///
/// Scanning survives a controller reset: it is re-applied on `controllerRecovered`, and if that
/// fails `.scanningFailed` is reported and scanning is off. One connection attempt runs at a time
/// (the controller has one initiator); a second `connect` meanwhile throws `.connectionInProgress`.
public actor GAPCentral {
    public struct Configuration: Sendable {
        /// Our address type when initiating connections.
        public var ownAddressType: AddressType
        /// Ask for the largest LE data length on each new connection.
        public var requestMaximumDataLength: Bool
        public var readRemoteVersion: Bool
        /// Advertisers remembered for merging scan responses and filtering duplicates.
        public var scanMemory: Int
        /// Accept valid connection parameters a peripheral asks for (L2CAP or link layer request).
        public var acceptsConnectionParameterRequests: Bool
        /// The clock of connection timeouts; `nil` uses the host's.
        public var clock: (any HostClock)?

        public init(ownAddressType: AddressType = .publicDevice, requestMaximumDataLength: Bool = true,
                    readRemoteVersion: Bool = true, scanMemory: Int = 1024, acceptsConnectionParameterRequests: Bool = true,
                    clock: (any HostClock)? = nil) {
            self.clock = clock
            self.ownAddressType = ownAddressType
            self.requestMaximumDataLength = requestMaximumDataLength
            self.readRemoteVersion = readRemoteVersion
            self.scanMemory = scanMemory
            self.acceptsConnectionParameterRequests = acceptsConnectionParameterRequests
        }
    }

    public nonisolated let host: HCIHost
    public nonisolated let events: AsyncStream<GAPCentralEvent>
    public nonisolated let configuration: Configuration
    nonisolated var clock: any HostClock { configuration.clock ?? host.configuration.clock }

    let eventSink: AsyncStream<GAPCentralEvent>.Continuation
    let logger: Logger
    /// Made at init, so no host event between init and `start()` is lost.
    private nonisolated let hostEvents: AsyncStream<HCIHostEvent>
    private var eventTask: Task<Void, Never>? = nil
    var started = false
    var controllerReady = true
    /// Links we reported `.connected`; only their later events are reported.
    var announced: Set<LinkID> = []

    // Scanning (see GAPCentral+Scanning).
    var wantedScan: ScanParameters? = nil
    var appliedScan: ScanParameters? = nil
    var controllerScanning = false
    /// Scanning is off for a connection attempt because the controller cannot do both.
    var scanPaused = false
    var scanCache: ScanCache
    var commandSequenceRunning = false
    var commandSequenceWaiters: [CheckedContinuation<Void, Never>] = []

    // Connecting (see GAPCentral+Connecting).
    var attempt: ConnectionAttempt? = nil
    var nextAttemptID = 0

    public init(host: HCIHost, configuration: Configuration = .init(), logger: Logger = Logger(label: "blesensor.gap.central")) {
        self.host = host
        self.configuration = configuration
        self.logger = logger
        scanCache = ScanCache(capacity: configuration.scanMemory)
        hostEvents = host.makeEventStream()
        (events, eventSink) = AsyncStream.makeStream(of: GAPCentralEvent.self)
    }

    /// Starts consuming host events. Call once the host is started.
    public func start() {
        guard !started else { return }
        started = true
        eventTask = Task { [weak self, hostEvents] in
            for await event in hostEvents {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    /// Open links where we are the central.
    public nonisolated var activeLinks: [Link] { host.links.openLinks.filter { $0.role == .central } }

    // MARK: Links

    public func disconnect(_ link: Link, reason: HCIStatus = .remoteUserTerminated) async throws(GAPError) {
        try requireCentral(link)
        do {
            try await host.disconnect(link, reason: reason)
        } catch {
            throw .controller(error)
        }
    }

    /// Starts encryption with a key both sides know (a bond's LTK, or the STK/LTK pairing just
    /// made): LE Enable Encryption. Returns when the controller accepted the command; the outcome
    /// comes as `.encryptionChanged` (status 0x06 PIN or Key Missing when the peer has no key).
    /// `key` is 16 bytes, little-endian as SMP produces it.
    public func startEncryption(on link: Link, key: [UInt8], random: UInt64, ediv: UInt16,
                                properties: EncryptionKeyProperties) async throws(GAPError) {
        try requireCentral(link)
        guard key.count == 16 else { throw .invalidKeyLength(key.count) }
        // Recorded first, so the Encryption Change that follows finds the key's properties.
        link.expectEncryption(with: properties)
        do {
            _ = try await host.send(HCILEEnableEncryption(handle: link.handle, random: random, ediv: ediv, longTermKey: key), for: link)
        } catch {
            throw .controller(error)
        }
    }

    /// Changes a link's parameters (LE Connection Update); `.connectionUpdated` follows.
    public func updateConnectionParameters(_ parameters: LEConnectionParameters, on link: Link) async throws(GAPError) {
        try requireCentral(link)
        do {
            _ = try await host.send(HCILEConnectionUpdate(handle: link.handle, parameters: parameters), for: link)
        } catch {
            throw .controller(error)
        }
    }

    /// The decision on a peripheral's L2CAP Connection Parameter Update Request (which L2CAP has
    /// already checked against the spec's ranges): when accepted, LE Connection Update is sent.
    /// Wire it with `L2CAPFixedChannels.setConnectionParameterRequestHandler`. Any thread.
    public nonisolated func connectionParameterUpdateRequested(_ parameters: LEConnectionParameters, on link: Link) -> Bool {
        guard configuration.acceptsConnectionParameterRequests, link.role == .central, link.isOpen else { return false }
        Task {
            do throws(GAPError) {
                try await self.updateConnectionParameters(parameters, on: link)
            } catch {
                self.logger.warning("\(link.id): accepted connection parameters not applied: \(error)")
            }
        }
        return true
    }

    func requireCentral(_ link: Link) throws(GAPError) {
        guard link.role == .central else { throw .wrongRole(link.id, expected: .central) }
        guard link.isOpen else { throw .linkClosed(link.id) }
    }

    // MARK: Host events

    private func handle(_ event: HCIHostEvent) {
        switch event {
        case let .linkOpened(link):
            guard link.role == .central else { return }
            linkOpened(link)
        case let .linkClosed(link, reason):
            guard announced.remove(link.id) != nil else { return }
            logger.info("peripheral disconnected: \(link.peer) reason \(reason)")
            eventSink.yield(.disconnected(link, reason: reason))
        case let .linkEvent(link, linkEvent):
            guard announced.contains(link.id) else { return }
            handleLinkEvent(link, linkEvent)
        case let .controllerEvent(.le(.advertisingReport(report))):
            receive(report)
        case let .controllerEvent(.le(.connectionComplete(complete))):
            // Successful ones arrive as `.linkOpened`; this is a failure (or our cancel).
            guard complete.role == .central else { return }
            connectionFailed(status: complete.status)
        case .controllerEvent:
            break
        case let .controllerResetting(reason):
            controllerReady = false
            controllerScanning = false
            appliedScan = nil
            abandonAttempt(because: .controller(reason))
            eventSink.yield(.controllerResetting(reason))
        case let .controllerRecovered(info):
            controllerReady = true
            eventSink.yield(.controllerRecovered(info))
            resumeScanningInBackground()
        case let .controllerFailed(error):
            controllerReady = false
            controllerScanning = false
            abandonAttempt(because: .controller(error))
            eventSink.yield(.controllerFailed(error))
        case let .transportClosed(error):
            controllerReady = false
            controllerScanning = false
            abandonAttempt(because: .controller(error.map { .transport($0) } ?? .shutDown))
            eventSink.yield(.transportClosed(error))
            eventSink.finish()
        }
    }

    func announce(_ link: Link) {
        announced.insert(link.id)
        logger.info("connected to peripheral: \(link)")
        eventSink.yield(.connected(link))
        LinkSetup.start(on: link, host: host, readRemoteVersion: configuration.readRemoteVersion,
                        requestMaximumDataLength: configuration.requestMaximumDataLength, logger: logger)
    }

    private func handleLinkEvent(_ link: Link, _ event: HCIEvent) {
        switch event {
        case .le(.connectionUpdateComplete):
            eventSink.yield(.connectionUpdated(link))
        case .le(.dataLengthChange):
            eventSink.yield(.dataLengthChanged(link))
        case let .encryptionChange(change):
            eventSink.yield(.encryptionChanged(link, status: change.status))
        case let .encryptionKeyRefreshComplete(refresh):
            eventSink.yield(.encryptionChanged(link, status: refresh.status))
        case .readRemoteVersionComplete:
            eventSink.yield(.remoteVersion(link))
        case let .le(.remoteConnectionParameterRequest(request)):
            answerRemoteParameterRequest(request, on: link)
        default:
            logger.trace("unhandled event on \(link.id): \(event)")
        }
    }

    /// The link layer's Connection Parameters Request procedure (Vol 6 Part B 5.1.7) asks the
    /// central's host; the same policy as for the L2CAP request applies.
    private func answerRemoteParameterRequest(_ request: LERemoteConnectionParameterRequestEvent, on link: Link) {
        let accept = configuration.acceptsConnectionParameterRequests
        Task {
            do {
                if accept {
                    _ = try await self.host.send(HCILERemoteConnectionParameterRequestReply(handle: link.handle, parameters: request.parameters), for: link)
                } else {
                    _ = try await self.host.send(HCILERemoteConnectionParameterRequestNegativeReply(handle: link.handle), for: link)
                }
            } catch {
                self.logger.warning("\(link.id): could not answer the connection parameter request: \(error)")
            }
        }
    }
}

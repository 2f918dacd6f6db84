import BLECore
import Dispatch
import HCI
import Logging
import Synchronization

/// An emulated LE controller on a `VirtualRadio`. It *is* the host's `HCITransport`: commands and ACL
/// packets go in through `send`, events and ACL data come out through the handler given to `open`.
///
/// Threading: `send` only parses and enqueues onto the radio queue, where all controller state lives;
/// outbound packets go through a per-controller serial delivery queue, so the host handler is called
/// in order and never from inside `send`.
public final class VirtualController: HCITransport, @unchecked Sendable {
    // @unchecked: state below the "radio queue" mark is only touched on `radio.queue`; `phase` is a Mutex.
    public let radio: VirtualRadio
    public let configuration: Configuration
    public let name: String
    let logger: Logger
    private let deliveryQueue: DispatchQueue
    private let phase = Mutex<Phase>(.idle)

    private enum Phase {
        case idle
        case open(@Sendable (HCITransportEvent) -> Void)
        case closed
    }

    static let defaultEventMask: UInt64 = 0x0000_1FFF_FFFF_FFFF
    static let defaultLEEventMask: UInt64 = 0x0000_0000_0000_001F
    static let defaultAdvertisingParameters = HCILESetAdvertisingParameters(intervalMin: 0x0800, intervalMax: 0x0800)
    static let defaultScanParameters = HCILESetScanParameters(active: false)

    // MARK: radio queue state
    var eventMask = defaultEventMask
    var eventMaskPage2: UInt64 = 0
    var leEventMask = defaultLEEventMask
    var randomAddress: BluetoothAddress?
    var advertisingParameters = defaultAdvertisingParameters
    var advertisingData: [UInt8] = []
    var scanResponseData: [UInt8] = []
    var isAdvertising = false
    var advertisingTimer: DispatchSourceTimer?
    var directedAdvertisingTimeout: DispatchWorkItem?
    var scanParameters = defaultScanParameters
    var isScanning = false
    var filterDuplicates = false
    var reportedAdvertisements: Set<ReportKey> = []
    var pendingCreate: HCILECreateConnection?
    var links: [UInt16: RadioLink] = [:]
    var reservedHandles: Set<UInt16> = []
    var suggestedDataLength = LEDataLength.minimum
    var buffered: [UInt16: Int] = [:]
    var batchPending: [UInt16: Int] = [:]
    var batchFlushScheduled = false
    var reassemblers: [UInt16: L2CAPReassembler] = [:]
    var maxBuffersInUseValue = 0
    var creditViolationsValue = 0
    var advertisingEnablesRefusedValue = 0
    var failingOpcodes: [HCIOpcode] = []
    var heldOpcodes: Set<HCIOpcode> = []
    var heldAnswers: [HCIEvent] = []
    var heldAnswerWaiters: [CheckedContinuation<Void, Never>] = []
    var bufferWaiters: [(handle: UInt16, continuation: CheckedContinuation<Void, Never>)] = []
    var isOnRadio = true

    struct ReportKey: Hashable {
        var address: DeviceAddress
        var eventType: UInt8
    }

    init(radio: VirtualRadio, configuration: Configuration) {
        self.radio = radio
        self.configuration = configuration
        name = "virtual:\(configuration.address)"
        var logger = Logger(label: "blesensor.virtual-controller")
        logger[metadataKey: "controller"] = "\(configuration.address)"
        self.logger = logger
        deliveryQueue = DispatchQueue(label: "virtual-controller-delivery.\(configuration.address)")
    }

    // MARK: - HCITransport

    public func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        let previous = phase.withLock { phase -> Phase in
            let previous = phase
            if case .idle = phase { phase = .open(handler) }
            return previous
        }
        switch previous {
        case .idle: return
        case .open: throw .alreadyOpen(name)
        case .closed: throw .notOpen(name)
        }
    }

    public func send(_ packet: HCIPacket) throws(HCITransportError) {
        let isOpen = phase.withLock { phase -> Bool in
            if case .open = phase { return true }
            return false
        }
        guard isOpen else { throw .notOpen(name) }
        switch packet.type {
        case .command:
            let body = packet.body
            radio.queue.async { self.receiveCommand(body) }
        case .acl:
            let body = packet.body
            radio.queue.async { self.receiveACL(body) }
        case .event, .sco, .iso:
            // A real controller would ignore these too; the host has a bug worth seeing in the log.
            logger.error("host sent a \(packet.type) packet, which an LE controller does not accept; dropped")
        }
    }

    public func close() {
        shutDown(with: nil)
    }

    // MARK: - Test controls

    /// Simulates losing the transport (USB unplugged): the host sees `.closed(.disconnected)`.
    public func dropLink() {
        shutDown(with: .disconnected("\(name) dropped by the test"))
    }

    /// The next command with this opcode gets no answer at all, so the host's command timeout fires.
    public func failNextCommand(opcode: HCIOpcode) {
        radio.queue.sync { failingOpcodes.append(opcode) }
    }

    /// From now on, commands with `opcode` take effect but their Command Complete / Status is kept
    /// back until `releaseHeldAnswers()`: the host sees the command "in flight" for as long as the
    /// test wants, while the radio already acts on it.
    public func holdAnswers(to opcode: HCIOpcode) {
        radio.queue.sync { _ = heldOpcodes.insert(opcode) }
    }

    /// Sends the answers kept back, in order, and stops holding.
    public func releaseHeldAnswers() {
        radio.queue.sync {
            heldOpcodes.removeAll()
            let answers = heldAnswers
            heldAnswers = []
            answers.forEach(sendEvent)
        }
    }

    /// Returns once an answer is being held (the command reached the controller and took effect).
    public func waitForHeldAnswer() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            radio.queue.async {
                if self.heldAnswers.isEmpty { self.heldAnswerWaiters.append(continuation) } else { continuation.resume() }
            }
        }
    }

    /// Returns once the host has ACL packets on `handle` in the controller's buffers.
    public func waitForPackets(on handle: UInt16) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            radio.queue.async {
                if (self.buffered[handle] ?? 0) > 0 {
                    continuation.resume()
                } else {
                    self.bufferWaiters.append((handle, continuation))
                }
            }
        }
    }

    /// Whether the controller is advertising right now (what the radio does, not what the host believes).
    public var isAdvertisingOnRadio: Bool { radio.queue.sync { isAdvertising } }

    /// The minimum advertising interval the host set last, in 0.625 ms units.
    public var advertisingIntervalMin: UInt16 { radio.queue.sync { advertisingParameters.intervalMin } }

    /// Whether the controller is scanning right now.
    public var isScanningOnRadio: Bool { radio.queue.sync { isScanning } }

    /// Sends a Hardware Error event (subject to the event mask, like a real one).
    public func injectHardwareError(code: UInt8) {
        radio.queue.sync { sendEvent(.hardwareError(code: code)) }
    }

    /// Delivers an event to the host as is, bypassing event masks.
    public func injectEvent(_ event: HCIEvent) {
        radio.queue.sync { emit(event.packet) }
    }

    /// Delivers arbitrary bytes to the host, for malformed-input tests.
    public func injectRawPacket(_ packet: HCIPacket) {
        radio.queue.sync { emit(packet) }
    }

    /// Reports `count` buffered packets on `handle` as completed (all of them when `count` exceeds the backlog).
    public func completePackets(handle: UInt16, count: Int) {
        radio.queue.sync { complete(handle: handle, count: count) }
    }

    /// Reports every buffered packet as completed.
    public func completeAllPackets() {
        radio.queue.sync {
            for (handle, count) in buffered.sorted(by: { $0.key < $1.key }) where count > 0 {
                complete(handle: handle, count: count)
            }
        }
    }

    /// ACL packets the host sent that the controller still holds, per connection handle.
    public var packetsInBuffer: [UInt16: Int] {
        radio.queue.sync { buffered.filter { $0.value > 0 } }
    }

    /// The most ACL buffers ever in use at once.
    public var maxBuffersInUse: Int { radio.queue.sync { maxBuffersInUseValue } }

    /// ACL packets the host sent without a free buffer or longer than the buffer size (dropped).
    public var creditViolations: Int { radio.queue.sync { creditViolationsValue } }

    /// LE Set Advertising Enable commands refused because a peripheral link was up
    /// (`Configuration.advertisesWhileConnected` false): a host that retries shows up here.
    public var advertisingEnablesRefused: Int { radio.queue.sync { advertisingEnablesRefusedValue } }

    /// Handles of the connections currently up.
    public var connectionHandles: [UInt16] { radio.queue.sync { links.keys.sorted() } }

    // MARK: - Delivery (radio queue)

    /// Hands a packet to the host's handler through the delivery queue; dropped once closed.
    func emit(_ packet: HCIPacket) {
        phase.withLock { phase in
            guard case let .open(handler) = phase else { return }
            deliveryQueue.async { handler(.packet(packet)) }
        }
    }

    private func shutDown(with error: HCITransportError?) {
        let handler = phase.withLock { phase -> (@Sendable (HCITransportEvent) -> Void)? in
            defer { phase = .closed }
            if case let .open(handler) = phase { return handler }
            return nil
        }
        if let handler {
            // Enqueued after every packet emitted so far, so `.closed` is the last thing the host sees.
            deliveryQueue.async { handler(.closed(error)) }
        }
        radio.queue.async {
            guard self.isOnRadio else { return }
            self.isOnRadio = false
            self.resetState()
            self.radio.remove(self)
        }
    }
}

import ATT
import BLECore
import GAP
import GATT
import GATTClient
import HCI
import SMP
import Synchronization

/// A connected peripheral (CoreBluetooth's `CBPeripheral`): its link, its GATT client, pairing.
///
/// GATT calls throw `GATTClientError` (carrying the ATT error code); they queue behind each other,
/// one request on the air at a time. Calling context: any thread.
public final class RemotePeripheral: Sendable, CustomStringConvertible {
    public let link: Link
    public let gatt: GATTClient
    private let gap: GAPCentral
    private let securityManager: SecurityManager?
    /// Woken whenever the link's ACL queue drains; every waiting writer re-checks for room.
    private let roomWaiters: LinkRoomWaiters
    private let closeWaiters = Mutex<(reason: HCIStatus?, waiters: [CheckedContinuation<HCIStatus, Never>])>((nil, []))

    init(link: Link, gatt: GATTClient, gap: GAPCentral, security: SecurityManager?, roomWaiters: LinkRoomWaiters) {
        self.link = link
        self.gatt = gatt
        self.gap = gap
        self.securityManager = security
        self.roomWaiters = roomWaiters
    }

    /// The address it connected with.
    public var address: DeviceAddress { link.peer }
    /// Its identity address once known (from pairing or its resolved private address).
    public var identity: DeviceAddress { link.identity }
    public var mtu: Int { link.mtu }
    public var security: LinkSecurity { link.security }
    public var isConnected: Bool { link.isOpen }
    /// We hold a bond for it (recognised when the link opened, or just paired).
    public var isBonded: Bool { link.isBonded }
    public var description: String { "\(link.peer) (\(link.id))" }

    // MARK: GATT

    /// Exchanges MTUs (do it first: it may only happen once per link).
    @discardableResult
    public func exchangeMTU() async throws(GATTClientError) -> Int { try await gatt.exchangeMTU() }

    public func discoverServices(_ uuids: [BluetoothUUID]? = nil) async throws(GATTClientError) -> [RemoteService] {
        try await gatt.discoverPrimaryServices(uuids)
    }

    public func discoverIncludedServices(of service: RemoteService) async throws(GATTClientError) -> [RemoteService] {
        try await gatt.discoverIncludedServices(of: service)
    }

    public func discoverCharacteristics(_ uuids: [BluetoothUUID]? = nil, of service: RemoteService) async throws(GATTClientError) -> [RemoteCharacteristic] {
        try await gatt.discoverCharacteristics(uuids, of: service)
    }

    public func discoverDescriptors(of characteristic: RemoteCharacteristic) async throws(GATTClientError) -> [RemoteDescriptor] {
        try await gatt.discoverDescriptors(of: characteristic)
    }

    /// The value, read in full (Read Blob for long values).
    public func readValue(of characteristic: RemoteCharacteristic) async throws(GATTClientError) -> [UInt8] {
        try await gatt.read(characteristic)
    }

    public func readValue(of descriptor: RemoteDescriptor) async throws(GATTClientError) -> [UInt8] {
        try await gatt.readDescriptor(descriptor)
    }

    /// Writes with response (Prepare/Execute Write when longer than ATT_MTU − 3).
    public func writeValue(_ value: [UInt8], to characteristic: RemoteCharacteristic) async throws(GATTClientError) {
        try await gatt.write(value, to: characteristic)
    }

    public func writeValue(_ value: [UInt8], to descriptor: RemoteDescriptor) async throws(GATTClientError) {
        try await gatt.writeDescriptor(value, to: descriptor)
    }

    /// A Write Command; `false` when the link has no room now: wait for
    /// `readyToSendWriteWithoutResponse` (or use `writeWithoutResponseWhenReady`).
    public func writeWithoutResponse(_ value: [UInt8], to characteristic: RemoteCharacteristic) throws(GATTClientError) -> Bool {
        try gatt.writeWithoutResponse(value, to: characteristic)
    }

    /// A Write Command, waiting for room first: writes paced by the link's credits.
    /// Several tasks may write at once: each waits for room on its own and none is left waiting.
    public func writeWithoutResponseWhenReady(_ value: [UInt8], to characteristic: RemoteCharacteristic) async throws(GATTClientError) {
        let link = link, gatt = gatt
        while !(try gatt.writeWithoutResponse(value, to: characteristic)) {
            guard link.isOpen else { throw .disconnected }
            // Returns at once when room came back between the refusal and the registration.
            await roomWaiters.wait(for: link) { gatt.canSendWriteWithoutResponse || !link.isOpen }
        }
    }

    public var canSendWriteWithoutResponse: Bool { gatt.canSendWriteWithoutResponse }
    /// CoreBluetooth's `peripheralIsReady(toSendWriteWithoutResponse:)`, for one reader; several
    /// writers use `writeWithoutResponseWhenReady` instead.
    public var readyToSendWriteWithoutResponse: AsyncStream<Void> { gatt.readyToSendWriteWithoutResponse }
    public func maximumWriteValueLength(withResponse: Bool) -> Int { gatt.maximumWriteValueLength(withResponse: withResponse) }

    /// Turns notifications (or indications) on or off through the CCCD; values arrive on `updates`.
    public func setNotifyValue(_ enabled: Bool, for characteristic: RemoteCharacteristic, preferIndications: Bool = false) async throws(GATTClientError) {
        try await gatt.setNotify(enabled, for: characteristic, preferIndications: preferIndications)
    }

    /// Notified and indicated values (indications already confirmed), in arrival order. One stream
    /// per link with one reader: two tasks iterating it would each get only some of the values, so
    /// read it in one place and dispatch by `valueHandle`.
    public var updates: AsyncStream<ValueUpdate> { gatt.updates }

    // MARK: Security

    /// Pairs (as initiator) and encrypts; bonds when both sides ask for it.
    @discardableResult
    public func pair() async throws(CentralError) -> PairingResult {
        guard let security = securityManager else { throw .securityNotConfigured }
        do { return try await security.pair(link) } catch { throw .security(error) }
    }

    /// Encrypts with the stored bond's key, without pairing.
    @discardableResult
    public func encrypt() async throws(CentralError) -> LinkSecurity {
        guard let security = securityManager else { throw .securityNotConfigured }
        do { return try await security.encrypt(link) } catch { throw .security(error) }
    }

    // MARK: Connection

    /// Disconnects and returns once the link is down.
    public func disconnect(reason: HCIStatus = .remoteUserTerminated) async {
        if link.isOpen {
            do { try await gap.disconnect(link, reason: reason) } catch {
                // Already closing or the controller is gone: the close is reported either way.
            }
        }
        _ = await disconnection()
    }

    /// Waits for the link to close; returns why.
    public func disconnection() async -> HCIStatus {
        await withCheckedContinuation { continuation in
            let reason: HCIStatus? = closeWaiters.withLock { state in
                if let reason = state.reason { return reason }
                state.waiters.append(continuation)
                return nil
            }
            if let reason { continuation.resume(returning: reason) }
        }
    }

    func closed(reason: HCIStatus) {
        let waiters = closeWaiters.withLock { state in
            state.reason = reason
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume(returning: reason) }
    }
}

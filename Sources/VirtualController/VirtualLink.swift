import BLECore
import Dispatch
import HCI

/// The central's end of a link made by `VirtualCentral.connect`.
public final class VirtualLink: @unchecked Sendable {
    // @unchecked: mutable state is only touched on the radio queue.
    public let peer: DeviceAddress
    /// Complete inbound L2CAP PDUs (basic header included), in order; finishes when the link drops.
    public let received: AsyncStream<[UInt8]>

    /// How `startEncryption` ended.
    public enum EncryptionResult: Sendable, Equatable {
        case encrypted(keySize: UInt8)
        /// The link was already encrypted and now uses the new key.
        case refreshed
        /// The peripheral's host had no key (negative reply: PIN or Key Missing), or the command was refused.
        case rejected(HCIStatus)
        /// The link dropped, e.g. with MIC Failure (0x3D) when the keys differ.
        case disconnected(HCIStatus)
        case timedOut
    }

    private let central: VirtualCentral
    private let parameters: LEConnectionParameters
    private let inbound: AsyncStream<[UInt8]>.Continuation
    private var radioLink: RadioLink?
    private var disconnectReason: HCIStatus?
    private var disconnectWaiters: [CheckedContinuation<HCIStatus, Never>] = []
    private var encryptionWaiter: CheckedContinuation<EncryptionResult, Never>?
    private var centralHandle: UInt16 = 0
    var connectContinuation: CheckedContinuation<Result<VirtualLink, VirtualCentralError>, Never>?

    init(central: VirtualCentral, target: DeviceAddress, parameters: LEConnectionParameters) {
        self.central = central
        peer = target
        self.parameters = parameters
        (received, inbound) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
    }

    private var queue: DispatchQueue { central.radio.queue }

    /// The connection handle the peripheral's controller reports for this link.
    public var peripheralHandle: UInt16 { queue.sync { radioLink?.peripheralHandle ?? 0 } }

    /// Sends one complete L2CAP PDU (basic header included) to the peripheral.
    public func send(l2capPDU: [UInt8]) throws(VirtualCentralError) {
        let sent = queue.sync { () -> Bool in
            guard let link = radioLink, link.isUp else { return false }
            link.peripheral.link(link, received: l2capPDU)
            return true
        }
        guard sent else { throw .notConnected(peer) }
    }

    /// Terminates the link; the peripheral's host sees `reason`, this side Connection Terminated By Local Host.
    public func disconnect(reason: HCIStatus = .remoteUserTerminated) {
        queue.async {
            guard let link = self.radioLink else { return }
            self.central.radio.terminate(link, initiator: self, reason: reason)
        }
    }

    /// Waits until the link is down and returns the reason this side saw.
    public var disconnected: HCIStatus {
        get async {
            await withCheckedContinuation { continuation in
                queue.async {
                    if let reason = self.disconnectReason {
                        continuation.resume(returning: reason)
                    } else {
                        self.disconnectWaiters.append(continuation)
                    }
                }
            }
        }
    }

    /// Starts (or refreshes) encryption as the central, like LE Enable Encryption.
    public func startEncryption(ltk: [UInt8], random: UInt64, ediv: UInt16, timeout: Duration = .seconds(5)) async -> EncryptionResult {
        await withCheckedContinuation { continuation in
            queue.async {
                guard let link = self.radioLink, link.isUp else {
                    continuation.resume(returning: .disconnected(self.disconnectReason ?? .unknownConnectionIdentifier))
                    return
                }
                guard link.pendingEncryption == nil, self.encryptionWaiter == nil else {
                    continuation.resume(returning: .rejected(.commandDisallowed))
                    return
                }
                self.encryptionWaiter = continuation
                link.pendingEncryption = PendingEncryption(longTermKey: ltk, random: random, ediv: ediv)
                link.peripheral.requestLongTermKey(link)
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.queue.async { self.finishEncryption(.timedOut) }
            }
        }
    }

    private func finishEncryption(_ result: EncryptionResult) {
        guard let waiter = encryptionWaiter else { return }
        encryptionWaiter = nil
        if result == .timedOut { radioLink?.pendingEncryption = nil }
        waiter.resume(returning: result)
    }
}

extension VirtualLink: RadioInitiator {
    var version: RemoteVersion { RemoteVersion(version: 0x0B, manufacturer: 0x05F1, subversion: 0x0001) }
    var maxRxDataLength: LEDataLength { .maximum }
    var initialMaxTx: LEDataLength { .maximum }
    var initiatorTarget: DeviceAddress { peer }
    var initiatorAddress: DeviceAddress { central.address }
    var initiatorParameters: LEConnectionParameters { parameters }

    func reserveHandle() -> UInt16? {
        centralHandle = central.makeHandle()
        return centralHandle
    }

    func connected(_ link: RadioLink) {
        radioLink = link
        guard let continuation = connectContinuation else { return }
        connectContinuation = nil
        continuation.resume(returning: .success(self))
    }

    func link(_ link: RadioLink, received pdu: [UInt8]) {
        inbound.yield(pdu)
    }

    func link(_ link: RadioLink, disconnectedWith reason: HCIStatus) {
        guard disconnectReason == nil else { return }
        disconnectReason = reason
        inbound.finish()
        finishEncryption(.disconnected(reason))
        let waiters = disconnectWaiters
        disconnectWaiters = []
        for waiter in waiters { waiter.resume(returning: reason) }
    }

    func linkParametersUpdated(_ link: RadioLink) {}

    /// A scripted central accepts whatever the peripheral asks for, as most phones do.
    func linkParametersRequested(_ link: RadioLink, _ parameters: LEConnectionParameters) {
        link.pendingParameterRequest = nil
        link.apply(parameters)
        link.peripheral.linkParametersUpdated(link)
    }

    func link(_ link: RadioLink, dataLengthChangedTo tx: LEDataLength, rx: LEDataLength) {}

    func link(_ link: RadioLink, encryptionFinished status: HCIStatus, refresh: Bool) {
        if status.isSuccess {
            finishEncryption(refresh ? .refreshed : .encrypted(keySize: 16))
        } else {
            finishEncryption(.rejected(status))
        }
    }
}

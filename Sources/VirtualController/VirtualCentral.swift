import BLECore
import Dispatch
import HCI

/// Why a scripted central could not do what a test or the demo asked.
public enum VirtualCentralError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing connectable answered in time.
    case connectionTimedOut(DeviceAddress, after: Duration)
    /// The link is down; PDUs cannot be sent on it.
    case notConnected(DeviceAddress)

    public var description: String {
        switch self {
        case let .connectionTimedOut(address, after):
            return "no connection to \(address) within \(after): make sure a controller advertises connectably with that address and type"
        case let .notConnected(address):
            return "the link to \(address) is down: connect again before sending"
        }
    }
}

/// A scripted central on the radio without an HCI host, for tests and the daemon's demo mode.
/// It talks to normal `VirtualController`s (with their hosts) acting as peripherals.
public final class VirtualCentral: @unchecked Sendable {
    // @unchecked: immutable apart from `nextHandle`, which is only touched on the radio queue.
    public let address: DeviceAddress
    let radio: VirtualRadio
    var nextHandle: UInt16 = 0x0040

    /// One device heard while scanning, merged over all its advertising events.
    public struct ScanResult: Sendable, Equatable {
        public var address: DeviceAddress
        public var advertisingData: [UInt8]
        /// `nil` unless an active scan got a scan response.
        public var scanResponseData: [UInt8]?
        public var connectable: Bool
    }

    init(radio: VirtualRadio, address: DeviceAddress) {
        self.radio = radio
        self.address = address
    }

    /// Listens for `duration` and returns every advertiser heard, in the order first heard.
    public func scan(for duration: Duration, active: Bool = true) async -> [ScanResult] {
        let session = ScanSession(scannerAddress: address, active: active)
        radio.queue.async { self.radio.startScanning(session) }
        try? await Task.sleep(for: duration)
        return await withCheckedContinuation { continuation in
            radio.queue.async {
                self.radio.stopScanning(session)
                continuation.resume(returning: session.results)
            }
        }
    }

    /// Scans until an advertiser matching `wanted` is heard, however long the radio takes (a busy
    /// machine delays it; the caller's time limit bounds a wait that never ends), and returns it.
    public func scan(until wanted: @escaping @Sendable (ScanResult) -> Bool, active: Bool = true) async -> ScanResult {
        let session = ScanSession(scannerAddress: address, active: active)
        return await withCheckedContinuation { continuation in
            radio.queue.async {
                session.onResult = { result in
                    guard wanted(result) else { return }
                    session.onResult = nil
                    self.radio.stopScanning(session)
                    continuation.resume(returning: result)
                }
                self.radio.startScanning(session)
            }
        }
    }

    /// Connects to a connectable advertiser, waiting up to `timeout` for it to appear.
    public func connect(to peer: DeviceAddress, parameters: LEConnectionParameters = LEConnectionParameters(),
                        timeout: Duration = .seconds(5)) async throws(VirtualCentralError) -> VirtualLink {
        let link = VirtualLink(central: self, target: peer, parameters: parameters)
        let result: Result<VirtualLink, VirtualCentralError> = await withCheckedContinuation { continuation in
            radio.queue.async {
                link.connectContinuation = continuation
                self.radio.startInitiating(link)
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.radio.queue.async {
                    guard let pending = link.connectContinuation else { return }
                    link.connectContinuation = nil
                    self.radio.stopInitiating(link)
                    pending.resume(returning: .failure(.connectionTimedOut(peer, after: timeout)))
                }
            }
        }
        return try result.get()
    }

    func makeHandle() -> UInt16 {
        nextHandle = nextHandle >= 0x0EFF ? 0x0040 : nextHandle + 1
        return nextHandle
    }
}

/// Collects advertisements for `VirtualCentral.scan`.
final class ScanSession: RadioScanner, @unchecked Sendable {
    // @unchecked: `results` is only touched on the radio queue.
    let scannerAddresses: [DeviceAddress]
    let active: Bool
    private(set) var results: [VirtualCentral.ScanResult] = []
    /// Called with each result as it is heard or updated (on the radio queue).
    var onResult: ((VirtualCentral.ScanResult) -> Void)?

    init(scannerAddress: DeviceAddress, active: Bool) {
        scannerAddresses = [scannerAddress]
        self.active = active
    }

    func hear(_ advertisement: Advertisement) {
        let scanResponse = active ? advertisement.scanResponse : nil
        if let index = results.firstIndex(where: { $0.address == advertisement.address }) {
            results[index].advertisingData = advertisement.data
            results[index].connectable = advertisement.isConnectable
            if let scanResponse { results[index].scanResponseData = scanResponse }
        } else {
            results.append(VirtualCentral.ScanResult(address: advertisement.address, advertisingData: advertisement.data,
                                                     scanResponseData: scanResponse, connectable: advertisement.isConnectable))
        }
        if let onResult, let heard = results.first(where: { $0.address == advertisement.address }) { onResult(heard) }
    }
}

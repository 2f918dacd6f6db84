import BLECore
import HCI

/// One end of a link: a `VirtualController` (with its HCI host) or a scripted `VirtualCentral`.
/// Every requirement is called on the radio queue only.
protocol LinkEndpoint: AnyObject {
    var version: RemoteVersion { get }
    /// The largest PDU payload this side can receive, for data length negotiation.
    var maxRxDataLength: LEDataLength { get }
    func link(_ link: RadioLink, received pdu: [UInt8])
    func link(_ link: RadioLink, disconnectedWith reason: HCIStatus)
    func linkParametersUpdated(_ link: RadioLink)
    /// The peripheral asked for new parameters; the central answers through `answerParameterRequest`.
    func linkParametersRequested(_ link: RadioLink, _ parameters: LEConnectionParameters)
    func link(_ link: RadioLink, dataLengthChangedTo tx: LEDataLength, rx: LEDataLength)
    /// The central side learns how its encryption request ended.
    func link(_ link: RadioLink, encryptionFinished status: HCIStatus, refresh: Bool)
}

/// Key material the central offered with LE Enable Encryption, waiting for the peripheral host's key.
struct PendingEncryption {
    var longTermKey: [UInt8]
    var random: UInt64
    var ediv: UInt16
}

/// A live LE connection between two endpoints.
final class RadioLink: @unchecked Sendable {
    // @unchecked: mutated on the radio queue only.
    let central: LinkEndpoint
    let peripheral: VirtualController
    let centralHandle: UInt16
    let peripheralHandle: UInt16
    /// What each side sees as the other's address.
    let centralAddress: DeviceAddress
    let peripheralAddress: DeviceAddress
    var interval: UInt16
    var latency: UInt16
    var supervisionTimeout: UInt16
    var isUp = true
    var isEncrypted = false
    var pendingEncryption: PendingEncryption?
    /// Parameters the peripheral requested, waiting for the central's answer.
    var pendingParameterRequest: LEConnectionParameters?
    /// The transmit lengths each side asked for (connInitialMaxTx or LE Set Data Length).
    var centralMaxTx: LEDataLength
    var peripheralMaxTx: LEDataLength

    init(central: LinkEndpoint, peripheral: VirtualController, centralHandle: UInt16, peripheralHandle: UInt16,
         centralAddress: DeviceAddress, peripheralAddress: DeviceAddress, parameters: LEConnectionParameters,
         centralMaxTx: LEDataLength, peripheralMaxTx: LEDataLength) {
        self.central = central
        self.peripheral = peripheral
        self.centralHandle = centralHandle
        self.peripheralHandle = peripheralHandle
        self.centralAddress = centralAddress
        self.peripheralAddress = peripheralAddress
        interval = parameters.intervalMax
        latency = parameters.latency
        supervisionTimeout = parameters.supervisionTimeout
        self.centralMaxTx = centralMaxTx
        self.peripheralMaxTx = peripheralMaxTx
    }

    func apply(_ parameters: LEConnectionParameters) {
        interval = parameters.intervalMax
        latency = parameters.latency
        supervisionTimeout = parameters.supervisionTimeout
    }

    func isCentral(_ endpoint: LinkEndpoint) -> Bool { endpoint === central }

    func handle(of endpoint: LinkEndpoint) -> UInt16 {
        isCentral(endpoint) ? centralHandle : peripheralHandle
    }

    func peer(of endpoint: LinkEndpoint) -> LinkEndpoint {
        isCentral(endpoint) ? peripheral : central
    }

    func peerAddress(of endpoint: LinkEndpoint) -> DeviceAddress {
        isCentral(endpoint) ? peripheralAddress : centralAddress
    }

    /// Effective (tx, rx) lengths for `endpoint`: what it may send is capped by what the peer can receive.
    func dataLengths(of endpoint: LinkEndpoint) -> (tx: LEDataLength, rx: LEDataLength) {
        let peer = peer(of: endpoint)
        let ownTx = isCentral(endpoint) ? centralMaxTx : peripheralMaxTx
        let peerTx = isCentral(endpoint) ? peripheralMaxTx : centralMaxTx
        let tx = LEDataLength(octets: min(ownTx.octets, peer.maxRxDataLength.octets), time: min(ownTx.time, peer.maxRxDataLength.time))
        let rx = LEDataLength(octets: min(peerTx.octets, endpoint.maxRxDataLength.octets), time: min(peerTx.time, endpoint.maxRxDataLength.time))
        return (tx, rx)
    }
}

/// What a scanner hears from one advertiser at one moment.
struct Advertisement {
    /// The advertiser, so it does not hear itself.
    var source: ObjectIdentifier?
    var eventType: LEAdvertisingReport.EventType
    var address: DeviceAddress
    var data: [UInt8]
    /// Present when the advertiser is scannable.
    var scanResponse: [UInt8]?
    /// Set for directed advertising: only this device may receive or connect.
    var target: DeviceAddress?
    var isConnectable: Bool
}

/// Something that listens to advertisements (a scanning controller or a VirtualCentral scan).
protocol RadioScanner: AnyObject {
    /// The address a directed advertiser must target for this scanner to hear it.
    var scannerAddresses: [DeviceAddress] { get }
    func hear(_ advertisement: Advertisement)
}

/// Something waiting to connect to an advertiser (LE Create Connection or VirtualCentral.connect).
protocol RadioInitiator: LinkEndpoint {
    var initiatorTarget: DeviceAddress { get }
    var initiatorAddress: DeviceAddress { get }
    var initiatorParameters: LEConnectionParameters { get }
    var initialMaxTx: LEDataLength { get }
    /// Reserves a handle for the new link; `nil` when this side cannot take another connection.
    func reserveHandle() -> UInt16?
    func connected(_ link: RadioLink)
}

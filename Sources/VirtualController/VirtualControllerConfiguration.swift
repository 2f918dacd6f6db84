import BLECore
import HCI

extension VirtualController {
    /// When the controller reports ACL buffers as free again (Number Of Completed Packets).
    public enum CompletionPolicy: Sendable, Equatable {
        /// One event per packet, right after it was sent to the peer.
        case immediate
        /// Counts are coalesced per handle and reported at most once per period (monotonic timer).
        case batched(every: Duration)
        /// Nothing completes until the test calls `completePackets(handle:count:)` or `completeAllPackets()`.
        case manual
    }

    /// What the emulated controller looks like to its host.
    public struct Configuration: Sendable {
        public var address: BluetoothAddress
        /// 0x0B is Core 5.2.
        public var hciVersion: UInt8
        public var hciRevision: UInt16
        public var lmpVersion: UInt8
        public var lmpSubversion: UInt16
        /// 0x05F1: The Linux Foundation.
        public var manufacturer: UInt16
        /// Largest ACL payload the host may send in one packet.
        public var aclBufferSize: UInt16
        /// How many ACL packets the controller can hold (shared by all handles).
        public var aclBufferCount: UInt8
        /// Whether LE Read Buffer Size [v2] is implemented (and declared).
        public var supportsReadBufferSizeV2: Bool
        /// Report zero LE buffers so the host must fall back to Read Buffer Size.
        public var leBuffersAreZero: Bool
        public var maxConnections: Int
        /// Controller→host ACL packets carry at most this many bytes, exercising host reassembly.
        public var inboundFragmentSize: Int
        public var numHCICommandPackets: UInt8
        public var completionPolicy: CompletionPolicy
        public var txPower: Int8
        /// RSSI reported for every advertisement this controller receives.
        public var rssi: Int8
        /// Whether scanning and initiating may run at once. Some controllers refuse one while the
        /// other runs (Command Disallowed), which hosts must handle.
        public var scansWhileInitiating = true
        /// LE Supported States (Vol 4 Part E 7.8.27); the default has every combination.
        public var leStates = LESupportedStates(rawValue: 0x3FF_FFFF_FFFF)
        /// false: LE Set Advertising Enable beside a peripheral link is refused (Command Disallowed),
        /// as on a controller without that state combination, whatever `leStates` says.
        public var advertisesWhileConnected = true

        public init(address: BluetoothAddress, hciVersion: UInt8 = 0x0B, hciRevision: UInt16 = 0x0001,
                    lmpVersion: UInt8 = 0x0B, lmpSubversion: UInt16 = 0x0001, manufacturer: UInt16 = 0x05F1,
                    aclBufferSize: UInt16 = 251, aclBufferCount: UInt8 = 8, supportsReadBufferSizeV2: Bool = true,
                    leBuffersAreZero: Bool = false, maxConnections: Int = 4, inboundFragmentSize: Int = 251,
                    numHCICommandPackets: UInt8 = 1, completionPolicy: CompletionPolicy = .immediate,
                    txPower: Int8 = 0, rssi: Int8 = -50) {
            self.address = address
            self.hciVersion = hciVersion
            self.hciRevision = hciRevision
            self.lmpVersion = lmpVersion
            self.lmpSubversion = lmpSubversion
            self.manufacturer = manufacturer
            self.aclBufferSize = aclBufferSize
            self.aclBufferCount = aclBufferCount
            self.supportsReadBufferSizeV2 = supportsReadBufferSizeV2
            self.leBuffersAreZero = leBuffersAreZero
            self.maxConnections = maxConnections
            // A zero fragment size would never make progress; one byte is the smallest useful split.
            self.inboundFragmentSize = max(1, inboundFragmentSize)
            self.numHCICommandPackets = numHCICommandPackets
            self.completionPolicy = completionPolicy
            self.txPower = txPower
            self.rssi = rssi
        }
    }
}

/// Version information a peer learns with Read Remote Version Information.
struct RemoteVersion: Sendable, Equatable {
    var version: UInt8
    var manufacturer: UInt16
    var subversion: UInt16
}

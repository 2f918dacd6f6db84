import BLECore

/// Everything `blesensord` needs to run, already validated.
public struct DaemonConfiguration: Sendable {
    public enum AddressMode: Sendable, Equatable {
        /// A random static address generated once and kept in the state directory.
        case persistentRandom
        case publicAddress
        case fixedRandom(BluetoothAddress)
    }

    /// `auto`, `virtual`, `tcp:…`, `hci:N` or `uart:…`.
    public var transport: String
    public var localName: String
    public var serviceUUIDs: [BluetoothUUID]
    public var maxConnections: Int
    public var addressMode: AddressMode
    public var advertisingInterval: Duration
    public var btsnoopPath: String?
    public var stateDirectory: String

    public init(transport: String = "auto", localName: String = "blesensor", serviceUUIDs: [BluetoothUUID] = [],
                maxConnections: Int = 1, addressMode: AddressMode = .persistentRandom,
                advertisingInterval: Duration = .milliseconds(100), btsnoopPath: String? = nil,
                stateDirectory: String = DaemonConfiguration.defaultStateDirectory()) {
        self.transport = transport
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.maxConnections = maxConnections
        self.addressMode = addressMode
        self.advertisingInterval = advertisingInterval
        self.btsnoopPath = btsnoopPath
        self.stateDirectory = stateDirectory
    }

    /// systemd's `$STATE_DIRECTORY` when set, `/var/lib/blesensor` for root, else the XDG state directory.
    public static func defaultStateDirectory(environment: [String: String] = ProcessEnvironment.current, userID: UInt32 = ProcessEnvironment.userID) -> String {
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !systemd.isEmpty { return String(systemd) }
        if userID == 0 { return "/var/lib/blesensor" }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/blesensor" }
        return (environment["HOME"] ?? "/tmp") + "/.local/state/blesensor"
    }

    /// Parses `--address`: `random`, `public` or an explicit random static address.
    public static func parseAddressMode(_ text: String) -> Result<AddressMode, DaemonError> {
        switch text.lowercased() {
        case "random": return .success(.persistentRandom)
        case "public": return .success(.publicAddress)
        default:
            guard let address = BluetoothAddress(text) else {
                return .failure(.invalidOption("--address", "'\(text)' is not 'random', 'public' or an address like C0:11:22:33:44:55"))
            }
            guard address.isValidRandomStatic else {
                return .failure(.invalidOption("--address", "\(address) is not a random static address: its two most significant bits must be 1 (C0…FF in the first byte)"))
            }
            return .success(.fixedRandom(address))
        }
    }
}

import BLECore
import HCITransports

/// `blesensord --unblock-rfkill`: clears a soft rfkill block on the adapter the configuration uses,
/// and nothing else. The packaged unit runs it as root before the daemon (ExecStartPre=+), since
/// /dev/rfkill is root's and the daemon runs unprivileged. Idempotent: an unblocked adapter, one
/// without a switch, a missing adapter or a transport without a local adapter change nothing, and
/// the daemon itself then reports whatever still stands in its way.
public enum RfkillUnblock {
    /// What the step found or did; `description` is the log line.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        case noLocalAdapter(transport: String)
        case adapterMissing(String)
        case noSwitch(String)
        case notBlocked(String, RfkillSwitch)
        case unblocked(String, RfkillSwitch)
        case hardBlocked(String, RfkillSwitch)
        case failed(String, reason: String)

        /// Non-zero only when unblocking was needed and failed.
        public var exitCode: Int32 {
            if case .failed = self { return 1 }
            return 0
        }

        public var description: String {
            switch self {
            case let .noLocalAdapter(transport): return "transport \(transport) uses no local adapter: no rfkill switch to clear"
            case let .adapterMissing(device): return "\(device) does not exist (yet): no rfkill switch to clear"
            case let .noSwitch(device): return "\(device) has no rfkill switch"
            case let .notBlocked(device, state): return "\(device): \(state.label) is not blocked"
            case let .unblocked(device, state): return "\(device) was soft-blocked: unblocked \(state.label)"
            case let .hardBlocked(device, state):
                return "\(device): \(state.label) is hard-blocked by a hardware or firmware switch, which no software can clear"
            case let .failed(device, reason): return "\(device): cannot clear its rfkill soft block: \(reason)"
            }
        }
    }

    /// The adapter index a transport setting opens, if it opens one: `hci:N`, or hci0 for `auto`.
    public static func adapterIndex(transport: String) -> UInt16? {
        if transport == "auto" { return 0 }
        guard case let .hciUserChannel(index)? = try? TransportSpecification(parsing: transport) else { return nil }
        return index
    }

    /// Reads sysfs and writes /dev/rfkill on a thread of its own.
    public static func run(transport: String, probe: BluetoothAdapterProbe = BluetoothAdapterProbe()) async -> Outcome {
        await DedicatedThread.run { check(transport: transport, probe: probe) }
    }

    /// Blocking (sysfs, /dev/rfkill): a dedicated thread only.
    static func check(transport: String, probe: BluetoothAdapterProbe) -> Outcome {
        guard let index = adapterIndex(transport: transport) else { return .noLocalAdapter(transport: transport) }
        let device = "hci\(index)"
        let state: RfkillSwitch?
        do { state = try probe.rfkillState(of: index) } catch {
            if case .noSuchAdapter = error { return .adapterMissing(device) }
            return .failed(device, reason: error.description)
        }
        guard let state else { return .noSwitch(device) }
        if state.hardBlocked { return .hardBlocked(device, state) }
        guard state.softBlocked else { return .notBlocked(device, state) }
        switch probe.calls.unblockRfkill(index: state.index) {
        case .success: return .unblocked(device, state)
        case let .failure(error): return .failed(device, reason: "/dev/rfkill: \(error); run `sudo rfkill unblock bluetooth`")
        }
    }
}

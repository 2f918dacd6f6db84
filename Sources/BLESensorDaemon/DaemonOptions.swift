/// How the daemon runs, beside what the configuration file says.
public struct DaemonOptions: Sendable {
    /// Write every HCI packet to this file in btsnoop format.
    public var btsnoopPath: String?
    public var serviceManager: ServiceNotifications

    public init(btsnoopPath: String? = nil, serviceManager: ServiceNotifications) {
        self.btsnoopPath = btsnoopPath
        self.serviceManager = serviceManager
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Limits and permissions of a `ControlServer`. The defaults are the daemon's; tests shrink them.
public struct ControlServerOptions: Sendable {
    /// Mode of the socket file after bind. 0660: the owner and the socket's group may connect.
    /// Under systemd, `RuntimeDirectory=blesensor` creates /run/blesensor for the service user and
    /// `Group=blesensor` (or `SupplementaryGroups=`) makes that the socket's group, so members of
    /// the `blesensor` group can run `blesensor status` without root.
    public var socketMode: mode_t = 0o660
    /// Mode for the socket's parent directory when it has to be created (systemd usually creates it).
    public var directoryMode: mode_t = 0o755
    /// Connected clients served at once; one more is accepted, told why, and closed.
    public var maxClients = 16
    /// Longest request line, newline excluded; a longer one gets an error and the connection is closed.
    public var maxRequestBytes = ControlProtocol.maxRequestBytes
    /// A client that sends nothing for this long while it is not watching is closed.
    public var idleTimeout: Duration = .seconds(10)
    /// How long a deferred reply (`remove-bond`) may take; then the client gets an error and is
    /// closed, and a late answer is dropped. Longer than the work takes, shorter than `blesensor` waits.
    public var replyTimeout: Duration = .seconds(10)
    /// Replies and updates queued for one client that does not read; past this a watch client is
    /// dropped rather than let the daemon's memory grow. One message always fits into an empty queue.
    public var maxOutputBytes = 256 * 1024
    /// Who may remove bonds, open pairing windows and see the passkey.
    public var administrators = Administrators()

    public init() {}
}

/// Which program the multi-call `blesensor` binary is, so that a package can install it as
/// /usr/bin/blesensor with /usr/bin/blesensord a symbolic link to it: one copy of the Swift runtime for both.
public enum MultiCallProgram: Equatable, Sendable {
    /// `blesensord`, the daemon.
    case daemon
    /// `blesensor`, the command-line tools.
    case cli

    /// The name the daemon is invoked by.
    public static let daemonName = "blesensord"

    /// From `argv[0]`: the daemon when its last path component is exactly `blesensord`
    /// (`/usr/bin/blesensord`, `blesensord` found on PATH, `./blesensord`), the CLI for any other
    /// name or none, so a renamed or differently linked binary stays the harmless one.
    public init(invocationName argv0: String?) {
        let basename = argv0?.split(separator: "/").last
        self = basename == Substring(Self.daemonName) ? .daemon : .cli
    }
}

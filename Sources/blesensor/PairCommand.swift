import ArgumentParser
import ControlSocket

/// `blesensor pair --window SECONDS` lets centrals pair for a while when the configuration says
/// `security.pairing: window`; `--passkey` shows the passkey a central must type. Both are for
/// root (or the daemon's admin group): the daemon checks who asks.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Open the daemon's pairing window and show the passkey a central needs, if any (root).",
        discussion: """
            With security.pairing: window, centrals may pair only while a window is open. With \
            always, no window is needed; with never, pairing is refused (exit status 1). The \
            passkey is never in the log or in `blesensor status`: with a random passkey, run \
            `blesensor pair --passkey` when the central asks for it.
            """)

    @Option(help: "How long centrals may pair, in seconds (\(ControlProtocol.pairingWindowSeconds.lowerBound)...\(ControlProtocol.pairingWindowSeconds.upperBound)).")
    var window: Int?

    @Flag(help: "Show the passkey: the fixed one, or the random one the daemon showed last.")
    var passkey = false

    @Option(help: "The daemon's control socket (default: /run/blesensor/control.sock, or this user's runtime directory).")
    var socket: String?

    func validate() throws {
        guard let window else {
            guard passkey else { throw ValidationError("give --window SECONDS, --passkey, or both") }
            return
        }
        let range = ControlProtocol.pairingWindowSeconds
        guard range.contains(window) else {
            throw ValidationError("--window \(window) is outside \(range.lowerBound)...\(range.upperBound) seconds")
        }
    }

    func run() throws {
        try CLIEnvironment.withDaemon("pair", socket: socket) { client in
            let pairing = if let window { try client.openPairingWindow(seconds: window) } else { try client.pairing() }
            print(SecurityFormatter.pairingText(pairing), terminator: "")
        }
    }
}

import ArgumentParser
import ControlSocket

/// `blesensor pair --window SECONDS`: lets centrals pair for a while when the configuration says
/// `security.pairing: window`; otherwise says what the configured policy means.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Open the daemon's pairing window and show the passkey a central needs, if any.",
        discussion: """
            With security.pairing: window, centrals may pair only while a window is open. With \
            always, no window is needed; with never, pairing is refused (exit status 1).
            """)

    @Option(help: "How long centrals may pair, in seconds (\(ControlProtocol.pairingWindowSeconds.lowerBound)...\(ControlProtocol.pairingWindowSeconds.upperBound)).")
    var window: Int

    @Option(help: "The daemon's control socket (default: /run/blesensor/control.sock, or this user's runtime directory).")
    var socket: String?

    func validate() throws {
        let range = ControlProtocol.pairingWindowSeconds
        guard range.contains(window) else {
            throw ValidationError("--window \(window) is outside \(range.lowerBound)...\(range.upperBound) seconds")
        }
    }

    func run() throws {
        try CLIEnvironment.withDaemon("pair", socket: socket) { client in
            print(SecurityFormatter.pairingText(try client.openPairingWindow(seconds: window)), terminator: "")
        }
    }
}

import ArgumentParser
import ControlSocket
import Foundation

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
            `blesensor pair --passkey` when the central asks for it, or follow pairing with \
            `--follow`, which prints each passkey, comparison and outcome as it happens (until \
            the window it opened closes, else until Ctrl-C).
            """)

    @Option(help: "How long centrals may pair, in seconds (\(ControlProtocol.pairingWindowSeconds.lowerBound)...\(ControlProtocol.pairingWindowSeconds.upperBound)).")
    var window: Int?

    @Flag(help: "Show the passkey: the fixed one, or the random one the daemon showed last.")
    var passkey = false

    @Flag(help: "Print pairing events as they happen: passkeys to type, numbers to compare, outcomes.")
    var follow = false

    @Option(help: "The daemon's control socket (default: /run/blesensor/control.sock, or this user's runtime directory).")
    var socket: String?

    func validate() throws {
        guard let window else {
            guard passkey || follow else { throw ValidationError("give --window SECONDS, --passkey or --follow") }
            return
        }
        let range = ControlProtocol.pairingWindowSeconds
        guard range.contains(window) else {
            throw ValidationError("--window \(window) is outside \(range.lowerBound)...\(range.upperBound) seconds")
        }
    }

    func run() throws {
        try CLIEnvironment.withDaemon("pair", socket: socket) { client in
            guard follow else {
                Self.write(SecurityFormatter.pairingText(try request(client)))
                return
            }
            // Watching before the window opens, so the first central's passkey is not missed.
            let watcher = try ControlClient.connect(path: CLIEnvironment.controlSocketPath(socket))
            defer { watcher.close() }
            var opened: Result<PairingStatus, any Error>?
            try watcher.watchPairing(acknowledged: {
                opened = Result { try request(client) }
                guard case let .success(pairing) = opened else { return false }
                Self.write(SecurityFormatter.pairingText(pairing))
                Self.write(untilWindowCloses(pairing) ? "following pairing until the window closes (Ctrl-C to stop)\n"
                           : "following pairing (Ctrl-C to stop)\n")
                return true
            }) { event in
                Self.write(SecurityFormatter.pairingEventLine(event) + "\n")
                guard case let .success(pairing) = opened else { return false }
                return !(untilWindowCloses(pairing) && event.kind == .windowClosed)
            }
            if case let .failure(error) = opened { throw error }
        }
    }

    private func request(_ client: ControlClient) throws -> PairingStatus {
        if let window { try client.openPairingWindow(seconds: window) } else { try client.pairing() }
    }

    /// With a window this command opened, following ends when it closes; else at Ctrl-C.
    private func untilWindowCloses(_ pairing: PairingStatus) -> Bool {
        window != nil && pairing.mode == .window
    }

    /// Unbuffered: a script reading the passkey from a pipe gets each line as it happens.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

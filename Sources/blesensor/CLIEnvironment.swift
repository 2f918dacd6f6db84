import ArgumentParser
import BridgeConfiguration
import ControlSocket
import ServiceManager

/// What the commands share: where they run from, how they report errors, where the daemon listens.
enum CLIEnvironment {
    static var executablePath: String { CommandLine.arguments.first ?? "blesensor" }

    static func printError(_ message: String) {
        StandardErrorSink.write(message)
    }

    /// Runs `body` with a client of the daemon's control socket; any failure is printed as
    /// "blesensor COMMAND: reason" and exits 1.
    static func withDaemon(_ command: String, socket: String?, replyTimeout: Duration = .seconds(5),
                           _ body: (ControlClient) throws -> Void) throws {
        do {
            let client = try ControlClient.connect(path: controlSocketPath(socket), replyTimeout: replyTimeout)
            defer { client.close() }
            try body(client)
        } catch {
            printError("blesensor \(command): \(error)")
            throw ExitCode(1)
        }
    }

    /// The daemon's socket: systemd's /run/blesensor when it exists (the installed service), else
    /// where a daemon run by this user puts it.
    static func controlSocketPath(_ explicit: String?) -> String {
        if let explicit { return explicit }
        if ProcessEnvironment.fileExists(ControlProtocol.defaultSocketPath) { return ControlProtocol.defaultSocketPath }
        return PathSettings.defaults(environment: ProcessEnvironment.current, userID: ProcessEnvironment.userID).controlSocket
    }
}

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

    /// The daemon's socket: systemd's /run/blesensor when that directory exists (the installed
    /// service), else where a daemon run by this user puts it. The directory, not the socket: a user
    /// outside group blesensor cannot see into it, and must be told "permission denied", not
    /// "not running".
    static func controlSocketPath(_ explicit: String?) -> String {
        if let explicit { return explicit }
        let installed = ControlProtocol.defaultSocketPath
        let directory = installed.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if ProcessEnvironment.fileExists(directory) { return installed }
        return PathSettings.defaults(environment: ProcessEnvironment.current, userID: ProcessEnvironment.userID).controlSocket
    }
}

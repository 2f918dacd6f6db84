#if canImport(Glibc)
import Glibc
#endif
import BridgeConfiguration
import ControlSocket

/// The process environment and standard error for the commands, without Foundation.
enum CLIEnvironment {
    static var current: [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry = entry.advanced(by: 1)
        }
        return result
    }

    static var executablePath: String { CommandLine.arguments.first ?? "blesensor" }

    static func printError(_ message: String) {
        var line = message
        if !line.hasSuffix("\n") { line += "\n" }
        // write(2) on fd 2: the C `stderr` global is shared mutable state to Swift 6.
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// The daemon's socket: systemd's /run/blesensor when it exists (the installed service), else
    /// where a daemon run by this user puts it.
    static func controlSocketPath(_ explicit: String?) -> String {
        if let explicit { return explicit }
        if access(ControlProtocol.defaultSocketPath, F_OK) == 0 { return ControlProtocol.defaultSocketPath }
        return PathSettings.defaults(environment: current, userID: getuid()).controlSocket
    }
}

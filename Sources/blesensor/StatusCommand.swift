import ArgumentParser
import ControlSocket

/// `blesensor status`: what the running daemon is doing.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the running daemon's transport, address, advertising, connected centrals and sensors.")

    @Flag(help: "Print the status as JSON.")
    var json = false

    @Option(help: "The daemon's control socket (default: /run/blesensor/control.sock, or this user's runtime directory).")
    var socket: String?

    func run() throws {
        try CLIEnvironment.withDaemon("status", socket: socket) { client in
            let snapshot = try client.status()
            print(json ? StatusFormatter.json(snapshot) : StatusFormatter.text(snapshot))
        }
    }
}

/// `blesensor sensors`: live readings, one line per update, until interrupted.
struct SensorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensors",
        abstract: "Print the sensors' readings as they change, until interrupted (Ctrl-C).")

    @Option(help: "The daemon's control socket (default: /run/blesensor/control.sock, or this user's runtime directory).")
    var socket: String?

    func run() throws {
        let path = CLIEnvironment.controlSocketPath(socket)
        do {
            let snapshot = try ControlClient.connect(path: path)
            let current = try snapshot.status()
            snapshot.close()
            for sensor in current.sensors { print(SensorLineFormatter.line(sensor)) }
            let client = try ControlClient.connect(path: path)
            defer { client.close() }
            try client.watchSensors { sensor in
                print(SensorLineFormatter.line(sensor))
                return true
            }
        } catch {
            CLIEnvironment.printError("blesensor sensors: \(error)")
            throw ExitCode(1)
        }
    }
}

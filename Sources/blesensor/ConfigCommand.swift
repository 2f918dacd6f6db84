import ArgumentParser
import BridgeConfiguration

/// `blesensor config check FILE`: every problem of a configuration file at once, as the daemon
/// would refuse it.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with blesensord configuration files.",
        subcommands: [ConfigCheckCommand.self])
}

struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a configuration file: prints every problem with its field and line; exit status 1 when there is any.")

    @Argument(help: "The file, e.g. /etc/blesensor/blesensor.yaml.")
    var file: String = ConfigurationLoader.defaultPath

    func run() throws {
        let environment = ProcessEnvironment.current
        let boards = ConfigurationLoader.defaultBoardsDirectories(environment: environment, executablePath: CLIEnvironment.executablePath)
        switch ConfigurationLoader.load(path: file, boardsDirectories: boards, environment: environment, userID: ProcessEnvironment.userID) {
        case let .success(configuration):
            let sensors = configuration.sensors.map { "\($0.name) (\($0.driver.rawValue))" }.joined(separator: ", ")
            let services = configuration.advertising.services.map(\.description).joined(separator: ", ")
            print("\(file): OK: board \(configuration.board.name), transport \(configuration.transport), \(configuration.sensors.count) sensor(s): \(sensors)")
            print("advertises '\(configuration.deviceName)'" + (services.isEmpty ? "" : " with services \(services)"))
        case let .failure(problems):
            CLIEnvironment.printError(problems.description)
            throw ExitCode(1)
        }
    }
}

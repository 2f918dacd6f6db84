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
        abstract: "Validate a configuration file: prints every problem with its field and line; exit status 1 when there is any.",
        discussion: """
        With `board: auto` it says which board auto picks on this machine (from /proc/device-tree/model). Where auto \
        cannot pick one (not a Raspberry Pi: checking a file for a Pi on another machine), the file is checked \
        against every board auto can pick instead.
        """)

    @Argument(help: "The file, e.g. /etc/blesensor/blesensor.yaml.")
    var file: String = ConfigurationLoader.defaultPath

    func run() throws {
        let environment = ProcessEnvironment.current
        let boards = ConfigurationLoader.defaultBoardsDirectories(environment: environment, executablePath: CLIEnvironment.executablePath)
        func load(_ detection: BoardDetection) -> Result<BridgeConfiguration, ConfigurationProblems> {
            ConfigurationLoader.load(path: file, boardsDirectories: boards, environment: environment, userID: ProcessEnvironment.userID,
                                     boardDetection: detection)
        }
        switch load(.machine) {
        case let .success(configuration):
            printSummary(configuration)
            if let choice = configuration.boardChoice { print("\(choice), read from \(choice.origin)") }
            warnAboutExposedSecrets(configuration)
        case let .failure(problems):
            let candidates = ConfigurationLoader.autoBoards(boardsDirectories: boards)
            guard let reason = problems.boardDetectionFailure, !candidates.isEmpty else {
                CLIEnvironment.printError(problems.description)
                throw ExitCode(1)
            }
            try checkEveryAutoBoard(candidates, cannotPickHere: reason, load: load)
        }
    }

    /// `board: auto` with no board for this machine: the file must hold on every board auto can pick.
    private func checkEveryAutoBoard(_ candidates: [(name: String, model: String)], cannotPickHere reason: BoardDetectionError,
                                     load: (BoardDetection) -> Result<BridgeConfiguration, ConfigurationProblems>) throws {
        print("\(file): board auto picks no board here: \(reason)")
        print("checking the file against every board auto picks on a Raspberry Pi:")
        var results: [(name: String, result: Result<BridgeConfiguration, ConfigurationProblems>)] = []
        for candidate in candidates {
            results.append((candidate.name, load(.assuming(model: candidate.model))))
        }
        let failures = results.compactMap { item -> (String, ConfigurationProblems)? in
            if case let .failure(problems) = item.result { return (item.name, problems) }
            return nil
        }
        for (name, result) in results {
            if case .success = result { print("  \(name): OK") }
        }
        // The same problems on every board are problems of the file, shown once.
        if failures.count == results.count, Set(failures.map { $0.1.problems.map(\.description) }).count == 1, let first = failures.first {
            CLIEnvironment.printError(first.1.description)
            throw ExitCode(1)
        }
        for (name, problems) in failures {
            CLIEnvironment.printError("  \(name): \(problems.description)")
        }
        if !failures.isEmpty { throw ExitCode(1) }
        if case let .success(configuration)? = results.first?.result { printSummary(configuration, board: "auto") }
    }

    /// A warning, not a failure: the file is valid, only readable by too many.
    private func warnAboutExposedSecrets(_ configuration: BridgeConfiguration) {
        for path in SecretFile.passkeyHolders(configurationPath: file, configuration.security) {
            if let exposure = SecretFile.exposure(of: path) { CLIEnvironment.printError("warning: \(exposure)") }
        }
        for path in SecretFile.mqttPasswordHolders(configuration) {
            if let exposure = SecretFile.exposure(of: path, holding: "the MQTT password") { CLIEnvironment.printError("warning: \(exposure)") }
        }
        if let keyFile = configuration.broadcast?.bindkeyFile, let exposure = SecretFile.exposure(of: keyFile, holding: "the BTHome bindkey") {
            CLIEnvironment.printError("warning: \(exposure)")
        }
    }

    private func printSummary(_ configuration: BridgeConfiguration, board: String? = nil) {
        let sensors = configuration.sensors.map { "\($0.name) (\($0.driver.rawValue))" }.joined(separator: ", ")
        let services = configuration.advertising.services.map(\.description).joined(separator: ", ")
        let boardName = board ?? (configuration.boardChoice == nil ? configuration.board.name : "auto")
        print("\(file): OK: board \(boardName), transport \(configuration.transport), \(configuration.sensors.count) sensor(s): \(sensors)")
        print("advertises '\(configuration.deviceName)'" + (services.isEmpty ? "" : " with services \(services)"))
        if let mqtt = configuration.mqtt {
            print("publishes \(Self.exported(mqtt.sensors, configuration)) to \(mqtt.broker) under \(mqtt.resolvedTopicPrefix(deviceName: configuration.deviceName))/, "
                  + "Home Assistant discovery under \(mqtt.discoveryPrefix)/")
        }
        if let metrics = configuration.metrics {
            print("metrics at http://\(metrics.listenDescription)/metrics for " + Self.exported(metrics.sensors, configuration))
        }
        if let broadcast = configuration.broadcast {
            print("broadcasts BTHome v2 (\(broadcast.bindkey == nil ? "not encrypted" : "encrypted")) from \(Self.exported(broadcast.sensors, configuration))")
        }
    }

    /// `room, battery, pulse (health data)`: what leaves the device, health data named as such.
    static func exported(_ selection: ExportedSensors, _ configuration: BridgeConfiguration) -> String {
        guard !selection.names.isEmpty else { return "no sensor" }
        let health = Set(configuration.sensors.filter(\.carriesHealthData).map(\.name))
        return selection.names.map { health.contains($0) ? "\($0) (health data)" : $0 }.joined(separator: ", ")
    }
}

import BridgeConfiguration

extension Examination {
    /// Loads the file with the daemon's own loader; every problem is listed with its path and line.
    mutating func checkConfiguration() -> BridgeConfiguration? {
        let installed = ConfigurationLoader.defaultPath
        let shown = options.configPath ?? installed
        let path = options.configPath ?? root.resolve(installed)
        if options.configPath == nil, !root.exists(installed) {
            add(.config, .fail, "config", "no configuration installed: \(installed) does not exist, and the service "
                + "(blesensord --config \(installed)) does not start without it",
                fix: "restore the package's file: sudo apt install --reinstall -o Dpkg::Options::=--force-confmiss blesensor "
                + "(or write one; `blesensor config check FILE` checks it, `blesensor doctor --config FILE` checks the rest)")
            return nil
        }
        // The paths the service gets from systemd (RuntimeDirectory=, StateDirectory=) unless the file sets its own.
        switch ConfigurationLoader.load(path: path, boardsDirectories: environment.boardsDirectories,
                                        environment: Installed.serviceEnvironment, userID: serviceUser?.uid ?? 0,
                                        boardDetection: boardDetection) {
        case let .success(configuration):
            let count = configuration.sensors.count == 1 ? "1 sensor" : "\(configuration.sensors.count) sensors"
            add(.config, .ok, "config", "\(shown) (board \(configuration.board.name), \(count))")
            for holder in SecretFile.passkeyHolders(configurationPath: path, configuration.security) {
                if let exposure = SecretFile.exposure(of: holder) {
                    add(.config, .warn, "passkey file", exposure,
                        fix: "make it readable by root and the blesensor group only, as the package installs it")
                }
            }
            for holder in SecretFile.mqttPasswordHolders(configuration) {
                if let exposure = SecretFile.exposure(of: holder, holding: "the MQTT password") {
                    add(.config, .warn, "mqtt password file", exposure,
                        fix: "make it readable by root and the blesensor group only")
                }
            }
            if let keyFile = configuration.broadcast?.bindkeyFile, let exposure = SecretFile.exposure(of: keyFile, holding: "the BTHome bindkey") {
                add(.config, .warn, "bindkey file", exposure, fix: "make it readable by root and the blesensor group only")
            }
            return configuration
        case let .failure(problems):
            let count = problems.problems.count == 1 ? "1 problem" : "\(problems.problems.count) problems"
            add(.config, .fail, "config", "\(shown): \(count)",
                fix: "correct the lines shown, check again with blesensor config check \(shown), then \(Installed.restart)",
                notes: problems.problems.map(\.description))
            return nil
        }
    }

    /// `board: auto` reads the model of the machine under `root` (a test's fake tree, or `/`).
    private var boardDetection: BoardDetection {
        guard case let .files(paths) = BoardDetection.machine.source else { return .machine }
        return BoardDetection(source: .files(paths.map { root.resolve($0) }))
    }
}

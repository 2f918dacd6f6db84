import BLECore
import BridgeConfiguration
import Logging

/// Where the daemon's configuration comes from and the command-line values that override it.
public enum DaemonConfiguration {
    public typealias AddressMode = AddressSetting

    /// `--config FILE`; else the installed file when it exists; else the built-in demo configuration
    /// on `board` (simulated by default), so a fresh checkout runs with no file at all.
    /// Logs which board `board: auto` picked.
    public static func load(file: String?, board: String?, environment: [String: String], executablePath: String,
                            logger: Logger) -> Result<BridgeConfiguration, ConfigurationProblems> {
        let result = choose(file: file, board: board, environment: environment, executablePath: executablePath, logger: logger)
        if case let .success(configuration) = result, let choice = configuration.boardChoice {
            logger.info("\(choice), read from \(choice.origin)")
        }
        return result
    }

    private static func choose(file: String?, board: String?, environment: [String: String], executablePath: String,
                               logger: Logger) -> Result<BridgeConfiguration, ConfigurationProblems> {
        let boards = ConfigurationLoader.defaultBoardsDirectories(environment: environment, executablePath: executablePath)
        let userID = ProcessEnvironment.userID
        if let file {
            return ConfigurationLoader.load(path: file, boardsDirectories: boards, environment: environment, userID: userID)
        }
        if board == nil, ProcessEnvironment.fileExists(ConfigurationLoader.defaultPath) {
            logger.info("configuration: \(ConfigurationLoader.defaultPath)")
            return ConfigurationLoader.load(path: ConfigurationLoader.defaultPath, boardsDirectories: boards, environment: environment, userID: userID)
        }
        let name = board ?? "simulated"
        logger.info("no configuration file: built-in demo configuration on board \(name) (write \(ConfigurationLoader.defaultPath) or pass --config)")
        return BridgeConfiguration.demo(board: name, boardsDirectories: boards, environment: environment, userID: userID)
    }

    /// Parses `--address`: `random`, `public` or an explicit random static address.
    public static func parseAddressMode(_ text: String) -> Result<AddressMode, DaemonError> {
        AddressSetting.parse(text).mapError { .invalidOption("--address", $0.description) }
    }
}

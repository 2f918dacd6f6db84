@testable import BridgeConfiguration

/// The package checkout, from this file's path: Tests/BridgeConfigurationTests/Support.swift.
let repositoryRoot: String = {
    var path = #filePath
    for _ in 0..<3 { path = ConfigurationLoader.parentDirectory(path) ?? "/" }
    return path
}()

let repositoryBoards = repositoryRoot + "/boards"

/// What boards/raspberry-pi-4b.yaml lists for `board: auto`.
let pi4Models = ["Raspberry Pi 4 Model B", "Raspberry Pi 400", "Raspberry Pi Compute Module 4", "Raspberry Pi Compute Module 4S"]

/// Loads text against the repository's boards with an empty environment.
func load(_ yaml: String, environment: [String: String] = [:]) -> Result<BridgeConfiguration, ConfigurationProblems> {
    ConfigurationLoader.load(yaml: yaml, fileName: "test.yaml", boardsDirectories: [repositoryBoards], environment: environment)
}

/// The problem descriptions of a load that must fail; empty when it unexpectedly succeeded.
func problems(_ yaml: String) -> [String] {
    switch load(yaml) {
    case .success: return []
    case let .failure(problems): return problems.problems.map(\.description)
    }
}

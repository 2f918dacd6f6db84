extension BridgeConfiguration {
    /// The configuration of `blesensord --board simulated` without a file: one sensor of each kind,
    /// all simulated. Written as YAML and loaded like any file, so it is validated the same way.
    static let demoYAML = """
        board: simulated
        device-name: blesensor demo
        sensors:
          - name: pulse
            driver: max30102
            publish: [heart-rate-measurement]
            simulation: {bpm: 72}
          - name: body
            driver: tmp102
            publish: [temperature-measurement, intermediate-temperature]
            simulation: {celsius: 36.8}
          - name: room
            driver: bme280
            publish: [es-temperature, humidity, pressure]
            simulation: {celsius: 21.5, humidity: 45, pressure: 101325}
          - name: battery
            driver: max17048
            publish: [battery-level]
            simulation: {battery-percent: 87}
        """

    /// The built-in demo. It only fails if a `simulated.yaml` found in `boardsDirectories` is broken
    /// (the simulated board is built in otherwise).
    /// `board` replaces the simulated board: the same four sensors at their usual addresses on a real
    /// board, for a first run with no file; an unknown board name is reported like one in a file.
    public static func demo(board: String = "simulated", boardsDirectories: [String], environment: [String: String],
                            userID: UInt32 = 0) -> Result<BridgeConfiguration, ConfigurationProblems> {
        let yaml = board == "simulated" ? demoYAML : demoYAML.replacing("board: simulated", with: "board: " + quoted(board))
        return ConfigurationLoader.load(yaml: yaml, fileName: "built-in demo configuration",
                                        boardsDirectories: boardsDirectories, environment: environment, userID: userID)
    }

    /// A YAML double-quoted scalar, so a board name given on the command line cannot change the document.
    private static func quoted(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": escaped += "\\" + String(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: escaped += "?"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}

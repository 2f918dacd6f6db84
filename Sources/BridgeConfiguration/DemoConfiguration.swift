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
    public static func demo(boardsDirectories: [String], environment: [String: String]) -> Result<BridgeConfiguration, ConfigurationProblems> {
        ConfigurationLoader.load(yaml: demoYAML, fileName: "built-in demo configuration",
                                 boardsDirectories: boardsDirectories, environment: environment)
    }
}

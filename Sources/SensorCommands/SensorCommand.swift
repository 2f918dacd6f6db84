import ArgumentParser

/// `blesensor sensor ...`: direct access to the hardware sensors, mounted by the blesensor CLI.
public struct SensorCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sensor",
        abstract: "Read hardware sensors (I2C, 1-Wire, GPIO, thermal).",
        subcommands: [SensorReadCommand.self, AnalyzePPGCommand.self]
    )

    public init() {}
}

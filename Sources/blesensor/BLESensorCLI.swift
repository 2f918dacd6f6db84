import ArgumentParser
import ProfileCommands
import SensorCommands

@main
struct BLESensorCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blesensor",
        abstract: "Tools for blesensor: daemon status and live readings, configuration checks, sensors, decoding, advertising plans.",
        subcommands: [StatusCommand.self, SensorsCommand.self, ConfigCommand.self, DecodeCommand.self, SensorCommand.self,
                      AdvertisingPlanCommand.self])
}

import ArgumentParser
import ProfileCommands

@main
struct BLESensorCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blesensor",
        abstract: "Tools for blesensor: decode characteristic values, read sensors, plan advertising.",
        subcommands: [DecodeCommand.self, AdvertisingPlanCommand.self])
}

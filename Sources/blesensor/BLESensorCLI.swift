import ArgumentParser
import BLECore
import ProfileCommands
import SensorCommands

/// The CLI's root command; the program's entry point is MultiCallMain, which runs it unless the
/// binary was invoked as `blesensord`.
struct BLESensorCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blesensor",
        abstract: "Tools for blesensor: daemon status and live readings, a doctor for installations, bonds and pairing, configuration checks, sensors, decoding, advertising plans, and a BLE central (scan, explore, read, write, subscribe).",
        version: ProductVersion.current,
        subcommands: [StatusCommand.self, SensorsCommand.self, DoctorCommand.self, BondsCommand.self, PairCommand.self, ConfigCommand.self,
                      DecodeCommand.self, SensorCommand.self, AdvertisingPlanCommand.self,
                      ScanCommand.self, ExploreCommand.self, ReadCommand.self, WriteCommand.self, SubscribeCommand.self])
}

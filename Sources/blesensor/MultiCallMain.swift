import ArgumentParser
import DaemonCommand
import MultiCall

/// The multi-call entry point: `blesensord` (the package's symbolic link to this binary) is the
/// daemon, any other name the CLI. Both commands parse CommandLine.arguments without argv[0] and name
/// themselves in help and usage by their `commandName`, so each reads exactly as its own program.
@main
enum MultiCallMain {
    /// Both are AsyncParsableCommands: their async `main()`, as `@main` on either would call.
    static func main() async {
        switch MultiCallProgram(invocationName: CommandLine.arguments.first) {
        case .daemon: await BLESensorD.main()
        case .cli: await BLESensorCLI.main()
        }
    }
}

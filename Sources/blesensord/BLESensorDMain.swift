import ArgumentParser
import DaemonCommand

/// The daemon alone, for development and tests (`.build/debug/blesensord`). A package needs only the
/// multi-call `blesensor`, with `/usr/bin/blesensord` a symbolic link to it.
@main
enum BLESensorDMain {
    /// The async `main()` of AsyncParsableCommand, as `@main` on BLESensorD chose: the sync one of
    /// ParsableCommand would never call the async `run()`.
    static func main() async {
        await BLESensorD.main()
    }
}

import ArgumentParser
import BridgeConfiguration
import Doctor

/// `blesensor doctor`: what is wrong with this installation, one line a check, a fix under each failure.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the kernel interfaces, accounts, configuration, daemon and sensors; a fix under each failure. Exit status 1 when any check failed.")

    @Option(help: "The configuration to check, as blesensord --config (default: /etc/blesensor/blesensor.yaml).")
    var config: String?

    @Option(help: "The daemon's control socket (default: the configuration's, /run/blesensor/control.sock).")
    var socket: String?

    @Flag(help: "Print one JSON object: ok, failures, warnings, and checks with status, subject, detail and fix.")
    var json = false

    // For tests: a directory standing for / (a fake /etc, /dev, /sys, /proc and /run). The default
    // configuration and the control socket are looked for inside it; sensors are not read directly.
    @Option(help: .hidden)
    var root: String = "/"

    func run() async throws {
        let environment = DoctorEnvironment.system(root: SystemRoot(path: root), variables: ProcessEnvironment.current,
                                                   executablePath: CLIEnvironment.executablePath)
        let report = await Doctor(options: DoctorOptions(configPath: config, socketPath: socket), environment: environment).report()
        print(json ? report.json : report.text)
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }
}

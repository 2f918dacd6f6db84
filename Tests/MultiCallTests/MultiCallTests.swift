import Foundation
import MultiCall
import Testing
import TestSupport

@Suite struct MultiCallProgramTests {
    @Test(arguments: ["blesensord", "/usr/bin/blesensord", "./blesensord", ".build/debug/blesensord", "/tmp/x/blesensord"])
    func blesensordIsTheDaemon(argv0: String) {
        #expect(MultiCallProgram(invocationName: argv0) == .daemon)
    }

    @Test(arguments: ["blesensor", "/usr/bin/blesensor", "blesensord2", "blesensord.old", "xblesensord", "Blesensord",
                      "blesensord/blesensor", "", "/"])
    func anyOtherNameIsTheCLI(argv0: String) {
        #expect(MultiCallProgram(invocationName: argv0) == .cli)
    }

    @Test func noNameIsTheCLI() {
        #expect(MultiCallProgram(invocationName: nil) == .cli)
    }
}

/// One run of a built program: its exit status and everything it printed.
struct ProgramRun: Equatable, CustomStringConvertible {
    var status: Int32
    var standardOutput: String
    var standardError: String

    var description: String { "exit \(status)\n--- stdout\n\(standardOutput)\n--- stderr\n\(standardError)" }
}

/// The built `blesensor` run as `blesensord` through a symbolic link, the way the Debian package
/// installs it, against the built `blesensord` executable (the daemon alone).
@Suite(
    .enabled(
        if: BuiltPrograms.directory != nil,
        "blesensor and blesensord are not built next to the test executable; run `swift build --build-tests` first"),
    .scaledTimeLimit(minutes: 2))
struct MultiCallBinaryTests {
    static let daemonArguments: [[String]] = [
        ["--help"],
        ["--version"],
        ["--experimental-dump-help"],
        ["--generate-completion-script", "bash"],
        ["--bogus"],
        ["--max-connections", "99"],
    ]

    @Test(arguments: daemonArguments)
    func theLinkNamedBlesensordIsTheDaemon(arguments: [String]) throws {
        let programs = try BuiltPrograms()
        let viaLink = try programs.run(programs.daemonLink, arguments)
        let daemon = try programs.run(programs.daemon, arguments)
        #expect(viaLink == daemon, "through the link:\n\(viaLink)\nblesensord:\n\(daemon)")
    }

    @Test func theDaemonsHelpUsageAndValidationNameBlesensord() throws {
        let programs = try BuiltPrograms()
        let help = try programs.run(programs.daemonLink, ["--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("OVERVIEW: Bluetooth LE sensor bridge daemon"), "\(help)")
        #expect(help.standardOutput.contains("USAGE: blesensord [--config <config>]"), "\(help)")

        let unknown = try programs.run(programs.daemonLink, ["--bogus"])
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.standardError.contains("Error: Unknown option '--bogus'"), "\(unknown)")
        #expect(unknown.standardError.contains("Usage: blesensord [--config <config>]"), "\(unknown)")

        let invalid = try programs.run(programs.daemonLink, ["--max-connections", "99"])
        #expect(invalid.status == 64, "\(invalid)")
        #expect(invalid.standardError.contains("--max-connections must be between 1 and 8"), "\(invalid)")
    }

    /// Past parsing into the async `run()`: a configuration file that is not there is refused with
    /// EX_CONFIG. (The log lines carry timestamps, so only the status is compared with blesensord's.)
    @Test func theDaemonRunsAndRefusesAMissingConfiguration() throws {
        let programs = try BuiltPrograms()
        let arguments = ["--config", "/nonexistent/blesensor.yaml", "--log-level", "error"]
        let refused = try programs.run(programs.daemonLink, arguments)
        #expect(refused.status == 78, "\(refused)")
        #expect(refused.standardError.contains("refusing to start"), "\(refused)")
        #expect(refused.standardOutput.isEmpty, "\(refused)")
        #expect(try programs.run(programs.daemon, arguments).status == 78)
    }

    @Test(arguments: ["blesensor", "blesensor-tools"])
    func anyOtherNameIsTheCLI(name: String) throws {
        let programs = try BuiltPrograms()
        let cli = try programs.link(named: name)
        let help = try programs.run(cli, ["--help"])
        #expect(help.status == 0, "\(help)")
        #expect(help.standardOutput.contains("USAGE: blesensor <subcommand>"), "\(help)")
        #expect(!help.standardOutput.contains("sensor bridge daemon: reads a board"), "\(help)")

        // The daemon's option is unknown to the CLI.
        let daemonOption = try programs.run(cli, ["--config", "/nonexistent/blesensor.yaml"])
        #expect(daemonOption.status == 64, "\(daemonOption)")
        #expect(daemonOption.standardError.contains("Unknown option '--config'"), "\(daemonOption)")
        #expect(daemonOption.standardError.contains("Usage: blesensor <subcommand>"), "\(daemonOption)")

        let version = try programs.run(cli, ["--version"])
        #expect(version == (try programs.run(programs.daemon, ["--version"])))
    }

    @Test func theCLIsSubcommandsRunThroughTheMultiCallEntry() throws {
        let programs = try BuiltPrograms()
        let cli = try programs.run(programs.cli, ["config", "--help"])
        #expect(cli.status == 0, "\(cli)")
        #expect(cli.standardOutput.contains("USAGE: blesensor config"), "\(cli)")
    }
}

/// The products directory this test executable was built into, with `blesensor` and `blesensord`,
/// and a scratch directory holding symbolic links to `blesensor`.
final class BuiltPrograms {
    static var directory: URL? {
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var directory = URL(fileURLWithPath: me).deletingLastPathComponent()
        // On Darwin the test binary sits inside an .xctest bundle.
        while directory.pathExtension == "xctest" || ["Contents", "MacOS"].contains(directory.lastPathComponent) {
            directory.deleteLastPathComponent()
        }
        let built = ["blesensor", "blesensord"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent($0).path)
        }
        return built ? directory : nil
    }

    let cli: URL
    let daemon: URL
    let scratch: URL

    init() throws {
        let directory = try #require(Self.directory)
        cli = directory.appendingPathComponent("blesensor")
        daemon = directory.appendingPathComponent("blesensord")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("blesensor-multicall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// A symbolic link to the built `blesensor`, named `name`.
    func link(named name: String) throws -> URL {
        let link = scratch.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: link.path) {
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: cli)
        }
        return link
    }

    var daemonLink: URL { get throws { try link(named: "blesensord") } }

    /// Runs `program` (argv[0] is its path) with output to files, so no pipe can fill and stall it.
    func run(_ program: URL, _ arguments: [String]) throws -> ProgramRun {
        let id = UUID().uuidString
        let outputs = [scratch.appendingPathComponent("\(id).out"), scratch.appendingPathComponent("\(id).err")]
        // A file that could not be made fails at FileHandle(forWritingTo:) below.
        for output in outputs { _ = FileManager.default.createFile(atPath: output.path, contents: nil) }
        let standardOutput = try FileHandle(forWritingTo: outputs[0])
        let standardError = try FileHandle(forWritingTo: outputs[1])
        defer {
            try? standardOutput.close()
            try? standardError.close()
        }
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        process.waitUntilExit()
        let texts = try outputs.map { try String(contentsOf: $0, encoding: .utf8) }
        return ProgramRun(status: process.terminationStatus, standardOutput: texts[0], standardError: texts[1])
    }
}

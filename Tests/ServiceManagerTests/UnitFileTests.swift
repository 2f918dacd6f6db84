import Foundation
import Testing

private let systemdAnalyzeInstalled = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]
    .contains { FileManager.default.isExecutableFile(atPath: $0) }

/// Runs systemd/verify-unit.sh, which fails on any `systemd-analyze verify` complaint about the unit.
@Suite(.enabled(if: systemdAnalyzeInstalled, "systemd-analyze is not installed"))
struct UnitFileTests {

    static let systemdDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("systemd")

    static func runScript(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [systemdDirectory.appendingPathComponent("verify-unit.sh").path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Read to the end before waiting, so a full pipe cannot deadlock the script.
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func theShippedUnitVerifiesWithoutWarnings() throws {
        let (status, output) = try Self.runScript([])
        #expect(status == 0, "\(output)")
        let complaints = output.split(separator: "\n").filter { $0.contains("blesensord.service") && !$0.hasPrefix("verify-unit:") && !$0.contains("Overall exposure") }
        #expect(complaints.isEmpty, "\(output)")
        #expect(output.contains("verify-unit: OK"))
    }

    /// Proves the check can fail (plain `systemd-analyze verify` exits 0 on all three, only warning).
    @Test(arguments: [
        ("Type=notify", "Type=notfy", "notfy"),
        ("ProtectHome=yes", "ProtectHome=yes\nProtectHoem=yes", "ProtectHoem"),
        ("RestrictAddressFamilies=AF_BLUETOOTH AF_UNIX", "RestrictAddressFamilies=AF_BLUETOOTH AF_UNIKS", "AF_UNIKS"),
        // Valid, but a looser sandbox than the unit has reached: the exposure limit fails it.
        ("ProtectSystem=strict", "ProtectSystem=no\nPrivateDevices=no", "exposure"),
    ])
    func aBrokenCopyFails(original: String, broken: String, mentioned: String) throws {
        let unit = try String(contentsOf: Self.systemdDirectory.appendingPathComponent("blesensord.service"), encoding: .utf8)
        #expect(unit.contains(original + "\n"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blesensord-broken-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("blesensord.service")
        try unit.replacingOccurrences(of: original + "\n", with: broken + "\n").write(to: copy, atomically: true, encoding: .utf8)
        let (status, output) = try Self.runScript(["/bin/true", copy.path])
        #expect(status == 1, "\(output)")
        #expect(output.contains(mentioned) && output.contains("FAILED"), "\(output)")
    }
}

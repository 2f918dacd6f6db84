import BLECore
import Foundation
import FuzzTargets
import Testing
import TestSupport

/// Every input in the committed corpus (the seeds, and every crash a fuzzing run found, added as
/// a file) goes through its target in the ordinary tests: a fixed crash stays fixed.
@Suite(.scaledTimeLimit(minutes: 2)) struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    /// On a thread of its own, as under libFuzzer: some targets wait for the work they started
    /// (a blocking wait that must not sit on the concurrency pool).
    @Test(arguments: FuzzTargets.all.keys.sorted())
    func theCorpusReplaysWithoutATrap(_ name: String) async throws {
        let directory = Self.corpus.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!files.isEmpty, "no corpus for \(name) in \(directory.path)")
        let target = try #require(FuzzTargets.all[name])
        let inputs = try files.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) }
        await DedicatedThread.run { inputs.forEach(target) }
    }
}

import BLECore
import Bonding
import Foundation
import Testing
import SQLiteBondStore
import TestSupport

/// What bond-store-crash-writer writes for n (see its main.swift).
enum CrashPlan {
    static let slots = 8
    static func slotIdentity(_ slot: Int) -> DeviceAddress {
        DeviceAddress(BluetoothAddress(littleEndian: [UInt8(slot), 0, 0, 0, 0, 0xC0]), type: .randomDevice)
    }
    static let measurementPeer = DeviceAddress(BluetoothAddress(littleEndian: [0, 1, 0, 0, 0, 0xC0]), type: .randomDevice)
    static func slot(of n: Int) -> Int { (n / 2) % slots }
}

/// One writer run: the numbers it reported committed, and how it ended.
struct WriterRun: Sendable {
    var reported: [Int] = []
    /// Ended other than by our SIGKILL (an error, a crash).
    var exitedByItself = false
    var stderr = ""
}

@Suite struct CrashDurabilityTests {
    static var writerPath: String? {
        // The writer is built into the same products directory as this test executable.
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var directory = URL(fileURLWithPath: me).deletingLastPathComponent()
        // On Darwin the test binary sits inside an .xctest bundle.
        while directory.pathExtension == "xctest" || ["Contents", "MacOS"].contains(directory.lastPathComponent) {
            directory.deleteLastPathComponent()
        }
        let path = directory.appendingPathComponent("bond-store-crash-writer").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    @Test(
        .enabled(
            if: writerPath != nil,
            "bond-store-crash-writer is not built next to the test executable; run `swift build --build-tests` first"),
        .scaledTimeLimit(minutes: 2))
    func everyReportedCommitSurvivesSIGKILL() async throws {
        let writer = try #require(Self.writerPath)
        let directory = TemporaryDirectory()
        let started = ContinuousClock.now
        var committed = Set<Int>()          // reported, or found in the database although unreported
        var latestInSlot = [Int: Int]()     // slot -> newest committed n
        var next = 0
        var kills = 0
        var unreportedFound = 0             // kills that landed between a commit and its report
        for iteration in 0..<100 {
            // Every 10th run is killed as soon as it starts (mid-open, mid-migration on the first); the others
            // right after their k-th report, so mostly in the middle of the next transaction.
            let killAfter: Int? = iteration % 10 == 0 ? nil : (iteration * 7) % 31
            let run = try await Self.runWriter(writer, database: directory.database, first: next, killAfter: killAfter)
            #expect(!run.exitedByItself, "the writer exited by itself: \(run.stderr)")
            if run.exitedByItself { return }
            kills += 1
            #expect(run.reported == Array(next..<(next + run.reported.count)), "reports out of order: \(run.reported)")
            for n in run.reported {
                committed.insert(n)
                if n % 2 == 0 { latestInSlot[CrashPlan.slot(of: n)] = n }
            }
            // The write under way at the kill may have committed without being reported.
            let inFlight = next + run.reported.count

            let store = try SQLiteBondStore(path: directory.database, maximumBonds: 16)
            try await store.checkIntegrity()
            let measured = Set(try await store.pendingMeasurements(for: CrashPlan.measurementPeer).measurements.map { m in
                m.value.withUnsafeBytes { Int(Int64(littleEndian: $0.loadUnaligned(as: Int64.self))) }
            })
            let expectedMeasured = Set(committed.filter { $0 % 2 == 1 })
            #expect(measured.isSuperset(of: expectedMeasured), "lost measurements \(expectedMeasured.subtracting(measured).sorted())")
            #expect(measured.subtracting(expectedMeasured).isSubset(of: [inFlight]), "measurements never written: \(measured.subtracting(expectedMeasured))")
            if measured.contains(inFlight) { committed.insert(inFlight); unreportedFound += 1 }

            for slot in 0..<CrashPlan.slots {
                let bond = try await store.bond(for: CrashPlan.slotIdentity(slot))
                let gatt = try await store.gattState(for: CrashPlan.slotIdentity(slot))
                guard let expected = latestInSlot[slot] else {
                    #expect(bond == nil || (inFlight % 2 == 0 && CrashPlan.slot(of: inFlight) == slot))
                    if let bond {
                        committed.insert(Int(bond.localSignCounter))
                        latestInSlot[slot] = Int(bond.localSignCounter)
                        unreportedFound += 1
                    }
                    continue
                }
                let found = try #require(bond, "slot \(slot) lost its bond \(expected)")
                let n = Int(found.localSignCounter)
                #expect(n == expected || (n == inFlight && CrashPlan.slot(of: inFlight) == slot), "slot \(slot): \(n), expected \(expected)")
                // One transaction: the bond row and its GATT state always come from the same write.
                #expect(found.ltk?.rand == UInt64(n) | 1 << 63)
                #expect(gatt?.cccds == [0x10: UInt16(truncatingIfNeeded: n) | 1], "slot \(slot) GATT state torn from bond \(n)")
                if n == inFlight && latestInSlot[slot] != n { committed.insert(n); latestInSlot[slot] = n; unreportedFound += 1 }
            }
            try store.close()
            next = inFlight + 1
        }
        let elapsed = ContinuousClock.now - started
        print("crash test: \(kills) SIGKILLs, \(committed.count) commits checked (\(unreportedFound) committed but unreported), \(elapsed)")
        #expect(committed.count > 100, "too few commits to mean anything")
    }

    /// Runs the writer on a thread of its own (reading its pipe blocks) until `killAfter` reports, or until it
    /// has started when nil, then SIGKILLs it and collects every report it printed.
    static func runWriter(_ writer: String, database: String, first: Int, killAfter: Int?) async throws -> WriterRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: writer)
        process.arguments = [database, String(first)]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var run = WriterRun()
                var lines = LineReader(fd: output.fileHandleForReading.fileDescriptor)
                // A bound on each wait, not a pace: a writer that stops printing fails the test instead
                // of hanging it (and a stray copy of the pipe's write end in another child can't either).
                if let killAfter {
                    var count = 0
                    while count < killAfter + 1, let line = lines.next(waitingAtMost: 60_000) {
                        if let n = Self.committedNumber(line) { run.reported.append(n) }
                        count += 1  // "opened" counts as the 0th line
                    }
                }
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                // The writer is dead: all it printed is in the pipes now, so read what is there and no
                // further; waiting for end of file would wait on any other process holding the write end.
                for line in lines.remainingLines() {
                    if let n = Self.committedNumber(line) { run.reported.append(n) }
                }
                run.exitedByItself = process.terminationReason != .uncaughtSignal || process.terminationStatus != SIGKILL
                var errorLines = LineReader(fd: errors.fileHandleForReading.fileDescriptor)
                run.stderr = errorLines.remainingLines().joined(separator: "\n")
                continuation.resume(returning: run)
            }
        }
    }

    static func committedNumber(_ line: String) -> Int? {
        guard line.hasPrefix("committed ") else { return nil }
        return Int(line.dropFirst("committed ".count))
    }
}

/// Lines from a pipe, read with poll(2) and read(2).
struct LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// The next line, waiting at most `milliseconds` for more data; nil at end of file or on timeout.
    mutating func next(waitingAtMost milliseconds: Int32) -> String? {
        while true {
            if let line = takeLine() { return line }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, readChunk() > 0 else { return nil }
        }
    }

    /// Every complete line already in the pipe (and a last unterminated one), without waiting.
    mutating func remainingLines() -> [String] {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        while readChunk() > 0 {}
        var lines: [String] = []
        while let line = takeLine() { lines.append(line) }
        if !buffer.isEmpty { lines.append(String(decoding: buffer, as: UTF8.self)); buffer.removeAll() }
        return lines
    }

    private mutating func takeLine() -> String? {
        guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
    }

    /// Bytes read, 0 at end of file or when nothing is there (non-blocking), -1 on error.
    private mutating func readChunk() -> Int {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count > 0 { buffer.append(contentsOf: chunk[..<count]) }
            return count < 0 && errno == EAGAIN ? 0 : count
        }
    }
}

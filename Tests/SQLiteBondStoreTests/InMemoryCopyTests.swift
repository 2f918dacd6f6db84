import BLECore
import Bonding
import Foundation
import Testing
@testable import SQLiteBondStore

/// The store for a read-only state directory: a copy in memory of the bonds in the file, which is
/// only read, and never written, locked or given sidecar files.
@Suite struct InMemoryCopyTests {
    @Test func aCleanlyClosedFileIsCopiedAndNeverTouched() async throws {
        // '?', '#' and '%' would end or escape SQLite's file: URI if they were not encoded.
        let directory = TemporaryDirectory()
        let odd = directory.path + "/state ?#%41"
        try FileManager.default.createDirectory(atPath: odd, withIntermediateDirectories: false)
        let path = odd + "/bonds.sqlite"
        let state = PeerGATTState(cccds: [0x10: 2], clientSupportedFeatures: [1], changeAware: true, databaseHash: Sample.hash)
        do {
            let store = try SQLiteBondStore(path: path)
            try await store.saveBond(Sample.bond(1), gattState: state, replacing: nil)
            try store.close()
        }
        let before = try contents(of: odd)
        #expect(before.keys.sorted() == ["bonds.sqlite"])

        let copy = try SQLiteBondStore.inMemoryCopy(of: path)
        #expect(copy.isInMemory)
        #expect(try await copy.bonds() == [Sample.bond(1)])
        #expect(try await copy.gattState(for: Sample.identity(1)) == state)
        try await copy.saveBond(Sample.bond(2), gattState: .empty, replacing: nil)
        try await copy.setCCCD(handle: 0x10, value: 0, for: Sample.identity(1))
        #expect(try await copy.bonds().count == 2)
        #expect(try contents(of: odd) == before)

        let reopened = try SQLiteBondStore(path: path)
        #expect(try await reopened.bonds() == [Sample.bond(1)])
        #expect(try await reopened.gattState(for: Sample.identity(1)) == state)
    }

    @Test func commitsStillInTheWALAreCopied() async throws {
        // A daemon that did not stop cleanly leaves its last commits in bonds.sqlite-wal.
        let directory = TemporaryDirectory()
        let writer = try SQLiteBondStore(path: directory.database)
        try await writer.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        try await writer.saveBond(Sample.bond(2), gattState: .empty, replacing: nil)
        #expect(FileManager.default.fileExists(atPath: directory.database + "-wal"))
        let copy = try SQLiteBondStore.inMemoryCopy(of: directory.database)
        #expect(Set(try await copy.bonds().map(\.identity)) == [Sample.identity(1), Sample.identity(2)])
        try writer.close()
    }

    @Test func aWALWithoutItsSharedMemoryFileIsReplayed() async throws {
        // A daemon killed, then its card remounted (or a backup restored): -wal, no -shm.
        let directory = TemporaryDirectory(), copy = TemporaryDirectory()
        let writer = try SQLiteBondStore(path: directory.database)
        try await writer.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        try await writer.saveBond(Sample.bond(2), gattState: .empty, replacing: nil)
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: directory.database + suffix, toPath: copy.database + suffix) }
        try writer.close()
        #expect(!FileManager.default.fileExists(atPath: copy.database + "-shm"))
        let before = try contents(of: copy.path)
        let store = try SQLiteBondStore.inMemoryCopy(of: copy.database, scratchDirectories: [directory.path])
        #expect(Set(try await store.bonds().map(\.identity)) == [Sample.identity(1), Sample.identity(2)])
        #expect(try contents(of: copy.path) == before)
        // The scratch copy, keys and all, is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("blesensor-bonds-") }.isEmpty)
    }

    @Test func withNoScratchDirectoryTheFileAloneIsRead() async throws {
        let directory = TemporaryDirectory()
        do {
            let store = try SQLiteBondStore(path: directory.database)
            try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
            try store.close()
        }
        let copy = try SQLiteBondStore.inMemoryCopy(of: directory.database, scratchDirectories: ["/nonexistent-\(UInt32.random(in: 0...UInt32.max))"])
        #expect(try await copy.bonds() == [Sample.bond(1)])
        #expect(try contents(of: directory.path).keys.sorted() == ["bonds.sqlite"])
    }

    @Test func aMissingFileGivesAnEmptyStoreAndNoFile() async throws {
        let directory = TemporaryDirectory()
        let copy = try SQLiteBondStore.inMemoryCopy(of: directory.database)
        #expect(try await copy.bonds().isEmpty)
        try await copy.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        #expect(try contents(of: directory.path).isEmpty)
    }

    @Test func aCorruptFileIsReportedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: directory.database))
        #expect {
            _ = try SQLiteBondStore.inMemoryCopy(of: directory.database)
        } throws: { error in
            guard let error = error as? BondStoreError, case .corrupt = error else { return false }
            return true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.database)) == garbage)
        let empty = try SQLiteBondStore.emptyInMemory(standingIn: directory.database)
        #expect(empty.isInMemory && empty.path == directory.database)
    }

    private func contents(of directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }
}

import BLECore
import BTHome
import Glibc
import Testing

@Suite struct BTHomeCounterStoreTests {
    /// A fresh directory under /tmp; `removed` deletes it with the counter file.
    private func directory() throws -> String {
        var template = Array("/tmp/bthome-counter-XXXXXX".utf8CString)
        let made = try #require(mkdtemp(&template))
        return String(cString: made)
    }

    private func removed(_ path: String) {
        unlink(path)
        unlink(path + ".tmp")
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        rmdir(directory)
    }

    private func contents(_ path: String) -> String? {
        guard case let .success(bytes) = BoundedFile.read(path, limit: 64) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func write(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// No file (a new or lost state directory): not 0, which a lost file's counters began at under
    /// the same bindkey, but the wall clock's seconds, above every counter sent at ≤ 1 packet/s.
    @Test func startsAtTheWallClockAndReservesABlockBeforeUsingIt() throws {
        let path = try directory() + "/bthome-counter"
        defer { removed(path) }
        var store = try BTHomeCounterStore(path: path, blockSize: 4, wallClock: { 1_700_000_000 })
        #expect(store.startedFromWallClock)
        #expect(contents(path) == nil)
        #expect(store.reservesOnNext)
        #expect(try store.next() == 1_700_000_000)
        #expect(!store.reservesOnNext)
        #expect(contents(path) == "1700000004\n")
        #expect(try (1...3).map { _ in try store.next() } == [1_700_000_001, 1_700_000_002, 1_700_000_003])
        #expect(contents(path) == "1700000004\n")
        #expect(try store.next() == 1_700_000_004)
        #expect(contents(path) == "1700000008\n")
        // Once there is a file, it alone counts.
        let again = try BTHomeCounterStore(path: path, blockSize: 4, wallClock: { 1_800_000_000 })
        #expect(!again.startedFromWallClock)
    }

    /// A restart (or a crash at any point) continues after the reserved block: no counter twice.
    @Test func aRestartNeverReusesACounter() throws {
        let path = try directory() + "/bthome-counter"
        defer { removed(path) }
        var used: [UInt32] = []
        for run in 0..<3 {
            var store = try BTHomeCounterStore(path: path, blockSize: 4, wallClock: { 0 })
            for _ in 0...run { used.append(try store.next()) }
        }
        #expect(used == [0, 4, 5, 8, 9, 10])
    }

    @Test(arguments: ["", "abc\n", "-5\n", "12 34\n", "99999999999\n", "1\n2\n"])
    func aDamagedFileIsAnErrorNotAGuess(text: String) throws {
        let path = try directory() + "/bthome-counter"
        defer { removed(path) }
        try write(text, to: path)
        #expect(throws: BTHomeCounterError.self) { try BTHomeCounterStore(path: path) }
        do {
            _ = try BTHomeCounterStore(path: path)
        } catch {
            #expect(error.description.contains("rather than reuse a counter"))
        }
    }

    @Test func theLastCounterIsHandedOutOnceThenItIsExhausted() throws {
        let path = try directory() + "/bthome-counter"
        defer { removed(path) }
        try write("\(UInt32.max - 2)\n", to: path)
        var store = try BTHomeCounterStore(path: path, blockSize: 1024)
        #expect(try store.next() == UInt32.max - 2)
        #expect(try store.next() == UInt32.max - 1)
        #expect(throws: BTHomeCounterError.exhausted(path: path)) { try store.next() }
    }

    @Test func anUnwritableDirectoryIsAnError() throws {
        var store = try BTHomeCounterStore(path: "/proc/self/no-such-dir/bthome-counter")
        #expect(throws: BTHomeCounterError.self) { try store.next() }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECore
import Testing

@Suite struct BoundedFileTests {
    /// A fresh directory under /tmp, removed with its files by `cleanUp`.
    private func makeDirectory() throws -> String {
        var template = Array("/tmp/bounded-file-XXXXXX".utf8CString)
        let made = try #require(mkdtemp(&template))
        return String(cString: made)
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
    }

    @Test func aFileLongerThanTheLimitArrivesCutAtTheLimit() throws {
        let directory = try makeDirectory()
        defer { _ = unlink(directory + "/long"); _ = rmdir(directory) }
        let content = (0..<10_000).map { UInt8(truncatingIfNeeded: $0) }
        try write(content, to: directory + "/long")
        #expect(BoundedFile.read(directory + "/long", limit: 5000) == .success(Array(content.prefix(5000))))
        #expect(BoundedFile.read(directory + "/long", limit: 20_000) == .success(content))
    }

    @Test func aMissingFileOrDirectoryIsMissingAndOtherFailuresAreNot() throws {
        let directory = try makeDirectory()
        defer { _ = unlink(directory + "/file"); _ = rmdir(directory) }
        try write([0x31], to: directory + "/file")
        guard case let .failure(absent) = BoundedFile.read(directory + "/absent", limit: 10) else { Issue.record("read a missing file"); return }
        #expect(absent.isMissing)
        guard case let .failure(underFile) = BoundedFile.read(directory + "/file/attribute", limit: 10) else { Issue.record("read below a file"); return }
        #expect(underFile.code == ENOTDIR && underFile.isMissing)
        guard case let .failure(isDirectory) = BoundedFile.read(directory, limit: 10) else { Issue.record("read a directory"); return }
        #expect(isDirectory.code == EISDIR && !isDirectory.isMissing)
    }

    /// A FIFO planted where a file belongs must not hang a non-blocking reader.
    @Test func anEmptyFIFOFailsAtOnceWhenNonBlocking() throws {
        let directory = try makeDirectory()
        let fifo = directory + "/fifo"
        defer { _ = unlink(fifo); _ = rmdir(directory) }
        try #require(mkfifo(fifo, 0o600) == 0)
        // No writer: end of file at once.
        #expect(BoundedFile.read(fifo, limit: 10, nonBlocking: true) == .success([]))
        // A writer that has written nothing: EAGAIN at once, where a blocking read would wait for ever.
        let writer = open(fifo, O_RDWR | O_NONBLOCK)
        try #require(writer >= 0)
        defer { close(writer) }
        guard case let .failure(failure) = BoundedFile.read(fifo, limit: 10, nonBlocking: true) else { Issue.record("read an empty FIFO"); return }
        #expect(failure.code == EAGAIN)
        // What the writer sent is returned, without waiting for more.
        #expect([UInt8]([0x41, 0x42]).withUnsafeBytes { Glibc.write(writer, $0.baseAddress, 2) } == 2)
        #expect(BoundedFile.read(fifo, limit: 10, nonBlocking: true) == .success([0x41, 0x42]))
    }

    @Test func aPrintableExcerptHidesControlCharactersAndIsBounded() {
        #expect("ab\u{1B}[2Jc\u{7F}".printableExcerpt() == "ab?[2Jc?")
        #expect(String(repeating: "x", count: 100).printableExcerpt(40).count == 40)
    }
}

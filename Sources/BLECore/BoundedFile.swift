#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Small files read whole but never more than a bound: sysfs attributes, the device-tree model,
/// the state directory's address, /etc and /proc files. Total: no size or content can trap, and
/// a file too long for its purpose arrives cut at `limit` for the caller's parser to refuse.
public enum BoundedFile {
    /// Why a file could not be read: the `errno` of open(2) or read(2).
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var code: Int32

        public init(code: Int32) { self.code = code }

        /// The path, or a directory on it, does not exist (the usual "not there" of sysfs and /proc).
        public var isMissing: Bool { code == ENOENT || code == ENOTDIR }

        /// The C library's text: `Permission denied`.
        public var description: String { String(cString: strerror(code)) }
    }

    /// At most `limit` bytes from the start of the file at `path`.
    /// `nonBlocking`: opened with O_NONBLOCK, so a FIFO planted where a file belongs returns what it
    /// had (or fails with EAGAIN when it had nothing) instead of hanging the reader.
    public static func read(_ path: String, limit: Int, nonBlocking: Bool = false) -> Result<[UInt8], Failure> {
        let flags = O_RDONLY | O_CLOEXEC | (nonBlocking ? O_NONBLOCK | O_NOCTTY : 0)
        let descriptor = open(path, flags)
        guard descriptor >= 0 else { return .failure(Failure(code: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(limit, 1), 4096))
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, min($0.count, limit - bytes.count)) }
            if count == 0 { break }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                // EAGAIN from an empty FIFO: what was read so far is all there is.
                if code == EAGAIN, nonBlocking, !bytes.isEmpty { break }
                return .failure(Failure(code: code))
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return .success(bytes)
    }
}

/// read(2) under a name that does not collide with `BoundedFile.read`.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}

extension StringProtocol {
    /// At most `maximum` characters, control characters shown as `?`: for quoting what a file
    /// held in an error message without letting it steer the terminal.
    public func printableExcerpt(_ maximum: Int = 40) -> String {
        String(unicodeScalars.prefix(maximum).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}

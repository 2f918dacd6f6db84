import BLECore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The filesystem the doctor looks at: `/` on a real machine, a directory holding a fake `/etc`,
/// `/dev`, `/sys`, `/proc` and `/run` in tests (`blesensor doctor --root DIR`). Every system path
/// the checks read goes through here, so a test can build a Pi with I2C disabled in a temp dir.
/// Reads are bounded and never trap; a file that cannot be read is `nil`, not an error to handle.
public struct SystemRoot: Sendable, Equatable {
    /// The directory that stands for `/`.
    public let path: String

    /// Sysfs attributes and /etc files are small; a bigger file is not what we expect to read.
    public static let maximumFileBytes = 1 << 20
    /// /proc of a busy machine has a few thousand entries; more than this is not a real listing.
    public static let maximumDirectoryEntries = 100_000

    public static let real = SystemRoot(path: "/")

    public init(path: String) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.path = trimmed.isEmpty ? "/" : trimmed
    }

    /// `/dev/i2c-1` inside the root.
    public func resolve(_ absolute: String) -> String {
        guard path != "/" else { return absolute }
        return absolute.hasPrefix("/") ? path + absolute : path + "/" + absolute
    }

    /// What `stat` says about a path (following symbolic links, as opening it would), or nil.
    public func info(_ absolute: String) -> FileInfo? {
        var buffer = stat()
        guard stat(resolve(absolute), &buffer) == 0 else { return nil }
        return FileInfo(buffer)
    }

    public func exists(_ absolute: String) -> Bool { info(absolute) != nil }

    /// The file's bytes as text (invalid UTF-8 repaired), at most `maximumFileBytes`; nil when it
    /// cannot be opened or read. Opened non-blocking, so a FIFO planted where a file belongs
    /// cannot hang the doctor.
    public func readText(_ absolute: String, limit: Int = SystemRoot.maximumFileBytes) -> String? {
        guard case let .success(bytes) = BoundedFile.read(resolve(absolute), limit: limit, nonBlocking: true) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A sysfs attribute or /proc line: the text without surrounding whitespace.
    public func readLine(_ absolute: String) -> String? {
        readText(absolute, limit: 4096).map { $0.trimmingWhitespace() }
    }

    /// Entry names of a directory, sorted, without `.` and `..`; nil when it cannot be listed.
    public func list(_ absolute: String) -> [String]? {
        guard let directory = opendir(resolve(absolute)) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while names.count < Self.maximumDirectoryEntries, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

/// The parts of `stat` the checks use.
public struct FileInfo: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case regular, directory, characterDevice = "character device", blockDevice = "block device", socket, fifo, other
    }

    public var kind: Kind
    public var owner: UInt32
    public var group: UInt32
    /// Permission bits (0o7777).
    public var mode: UInt32

    public init(kind: Kind, owner: UInt32, group: UInt32, mode: UInt32) {
        self.kind = kind
        self.owner = owner
        self.group = group
        self.mode = mode & 0o7777
    }

    init(_ buffer: stat) {
        let type = UInt32(buffer.st_mode) & UInt32(S_IFMT)
        let kind: Kind = switch type {
        case UInt32(S_IFREG): .regular
        case UInt32(S_IFDIR): .directory
        case UInt32(S_IFCHR): .characterDevice
        case UInt32(S_IFBLK): .blockDevice
        case UInt32(S_IFSOCK): .socket
        case UInt32(S_IFIFO): .fifo
        default: .other
        }
        self.init(kind: kind, owner: UInt32(buffer.st_uid), group: UInt32(buffer.st_gid), mode: UInt32(buffer.st_mode))
    }

    /// `rw-rw----` for 0o660.
    public var permissionText: String {
        let letters: [Character] = ["r", "w", "x"]
        return String((0..<9).map { bit in mode & (1 << (8 - bit)) != 0 ? letters[bit % 3] : "-" })
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and line breaks (FoundationEssentials has no trimming).
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

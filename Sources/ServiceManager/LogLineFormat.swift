#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How log lines look on stderr.
public enum LogLineFormat: Sendable, Equatable {
    /// `<6>label: message key=value`: the sd-daemon(3) priority prefix, which journald strips
    /// into PRIORITY=, and no timestamp (journald stamps every line itself).
    case journal
    /// `2026-11-23T23:45:01.123Z info label: message key=value`, for a terminal or a file.
    case timestamped

    /// `.journal` when stderr is the stream systemd connected to the journal: `JOURNAL_STREAM`
    /// (`device:inode`) must name `standardError`. Comparing, as systemd.exec(5) advises, rather
    /// than trusting the variable alone, keeps prefixes out of a file that a child of a service
    /// (which inherits the variable) redirected its stderr to.
    public static func detect(environment: [String: String],
                              standardError: FileIdentity? = FileIdentity(descriptor: 2)) -> LogLineFormat {
        guard let value = environment["JOURNAL_STREAM"], let standardError,
              let stream = FileIdentity(journalStream: value), stream == standardError else {
            return .timestamped
        }
        return .journal
    }
}

/// A file's device and inode, what `JOURNAL_STREAM` names.
public struct FileIdentity: Sendable, Equatable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// fstat(2) of an open descriptor; nil when it is closed.
    public init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Parses `JOURNAL_STREAM`'s `device:inode`, both decimal.
    public init?(journalStream value: String) {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let device = WatchdogSettings.parseDecimal(String(parts[0])),
              let inode = WatchdogSettings.parseDecimal(String(parts[1])) else { return nil }
        self.init(device: device, inode: inode)
    }
}

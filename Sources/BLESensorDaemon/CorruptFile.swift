import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Moves a damaged SQLite file (and its WAL and shared-memory files, which belong to it) aside
/// under a name with the time, so it can be examined and nothing of it is applied to a new file.
enum CorruptFile {
    /// The new name of `path`, nil when it could not be moved.
    static func moveAside(_ path: String, at date: Date) -> String? {
        let stamp = Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted, timeZone: .gmt).format(date)
        var target = "\(path).corrupt-\(stamp)"
        var attempt = 1
        while access(target, F_OK) == 0 {
            attempt += 1
            target = "\(path).corrupt-\(stamp)-\(attempt)"
        }
        guard rename(path, target) == 0 else { return nil }
        for suffix in ["-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
            _ = rename(path + suffix, target + suffix)
        }
        return target
    }
}

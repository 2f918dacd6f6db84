import BLECore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Small attribute files and directory listings of sysfs (or of a test's copy), read so that no
/// content, size or missing entry can trap: a file is at most `limit` bytes, decoded leniently.
enum SysfsFile {
    static let limit = 4096

    /// The file's text, nil when it does not exist. Longer files are cut at `limit` bytes (no sysfs
    /// attribute we read is longer, so a cut file fails its parser instead of being trusted).
    static func text(at path: String) -> Result<String?, SystemErrno> {
        switch BoundedFile.read(path, limit: limit) {
        case let .success(bytes): return .success(String(decoding: bytes, as: UTF8.self))
        case let .failure(failure) where failure.isMissing: return .success(nil)
        case let .failure(failure): return .failure(SystemErrno(failure.code))
        }
    }

    /// The names in a directory (without `.` and `..`), nil when it does not exist.
    static func names(in directory: String) -> Result<[String]?, SystemErrno> {
        guard let stream = opendir(directory) else {
            return errno == ENOENT || errno == ENOTDIR ? .success(nil) : .failure(SystemErrno(errno))
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// `prefix` followed by a decimal number that fits `T` (`hci0`, `rfkill12`), else nil.
    static func number<T: FixedWidthInteger>(in name: String, after prefix: String, as type: T.Type = T.self) -> T? {
        guard name.hasPrefix(prefix) else { return nil }
        let digits = name.dropFirst(prefix.count)
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return T(digits)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few process facts the daemon and the CLI read (environment, user, file existence), behind
/// one seam so tests can pass their own.
public enum ProcessEnvironment {
    public static var current: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let separator = text.firstIndex(of: "=") {
                result[String(text[..<separator])] = String(text[text.index(after: separator)...])
            }
            pointer += 1
        }
        return result
    }

    public static var userID: UInt32 { UInt32(getuid()) }

    public static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The working directory, or nil when it cannot be read (deleted, or a path too long).
    public static var currentDirectory: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

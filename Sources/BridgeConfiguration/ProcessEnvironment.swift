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
}

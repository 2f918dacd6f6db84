#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum SystemError {
    /// The C library's text for an errno value ("Connection refused").
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

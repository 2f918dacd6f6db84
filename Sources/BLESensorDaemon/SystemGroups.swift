#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Group lookups through the C library (NSS: /etc/group, LDAP...). Blocking: call off the
/// concurrency pool.
enum SystemGroups {
    static func id(of name: String) -> UInt32? {
        var group = group()
        var found: UnsafeMutablePointer<group>? = nil
        var buffer = [CChar](repeating: 0, count: 4096)
        for _ in 0..<4 {
            let status = getgrnam_r(name, &group, &buffer, buffer.count, &found)
            if status == ERANGE {
                buffer = [CChar](repeating: 0, count: buffer.count * 4)
                continue
            }
            return status == 0 && found != nil ? group.gr_gid : nil
        }
        return nil
    }
}

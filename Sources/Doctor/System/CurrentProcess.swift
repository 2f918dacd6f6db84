#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Invoker {
    /// This process's real user and group ids and its supplementary groups.
    public static func current() -> Invoker {
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        let filled = count > 0 ? getgroups(count, &groups) : 0
        return Invoker(uid: UInt32(getuid()), gid: UInt32(getgid()),
                       sessionGroups: Set(groups.prefix(Int(max(filled, 0))).map { UInt32($0) }))
    }
}

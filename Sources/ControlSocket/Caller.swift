#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who is at the other end of a control connection, from the kernel (`SO_PEERCRED`,
/// `SO_PEERGROUPS`): what a client says about itself is never asked.
public struct Caller: Sendable, Equatable {
    public var uid: UInt32
    public var gid: UInt32
    /// Supplementary groups; empty where the kernel cannot tell (before Linux 4.13).
    public var groups: [UInt32]

    public init(uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// The peer of a connected Unix socket; nil when the kernel does not say (then the caller is
    /// treated as nobody in particular).
    static func peer(of fd: Int32) -> Caller? {
        // struct ucred: pid_t pid, uid_t uid, gid_t gid.
        var credentials = [UInt32](repeating: 0, count: 3)
        var length = socklen_t(credentials.count * MemoryLayout<UInt32>.size)
        let read = credentials.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length) }
        guard read == 0, Int(length) == credentials.count * MemoryLayout<UInt32>.size else { return nil }
        return Caller(uid: credentials[1], gid: credentials[2], groups: supplementaryGroups(of: fd))
    }

    /// SO_PEERGROUPS (Linux 4.13): 59 on every architecture; the constant is not in every libc.
    private static let peerGroupsOption: Int32 = 59

    private static func supplementaryGroups(of fd: Int32) -> [UInt32] {
        var groups = [UInt32](repeating: 0, count: 64)
        for _ in 0..<2 {
            var length = socklen_t(groups.count * MemoryLayout<UInt32>.size)
            let read = groups.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, peerGroupsOption, $0.baseAddress, &length) }
            if read == 0 { return Array(groups.prefix(Int(length) / MemoryLayout<UInt32>.size)) }
            // ERANGE: `length` now says how much room the list needs.
            guard errno == ERANGE, Int(length) > groups.count * MemoryLayout<UInt32>.size else { return [] }
            groups = [UInt32](repeating: 0, count: Int(length) / MemoryLayout<UInt32>.size + 1)
        }
        return []
    }
}

/// Who may change the daemon's security state (remove bonds, open pairing windows) and see its
/// passkey: root, the daemon's own user, and members of an optional admin group. Everyone who
/// can reach the socket (its group) may read status and bonds.
public struct Administrators: Sendable, Equatable {
    public var users: Set<UInt32>
    public var group: UInt32?

    public init(users: Set<UInt32> = [0, geteuid()], group: UInt32? = nil) {
        self.users = users
        self.group = group
    }

    public func admit(_ caller: Caller?) -> Bool {
        guard let caller else { return false }
        if users.contains(caller.uid) { return true }
        guard let group else { return false }
        return caller.gid == group || caller.groups.contains(group)
    }
}

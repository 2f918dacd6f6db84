/// Who may open a file, decided the way the kernel does for a process with these ids: root may,
/// the owner gets the owner bits, a member of the file's group the group bits, anyone else the
/// other bits (a matching class is used even when a later one would allow more).
public struct ProcessIdentity: Sendable, Equatable {
    public var uid: UInt32
    public var groups: Set<UInt32>

    public init(uid: UInt32, groups: Set<UInt32>) {
        self.uid = uid
        self.groups = groups
    }

    public enum Need: Sendable, Equatable {
        case read, readWrite

        var bits: UInt32 { self == .read ? 0o4 : 0o6 }
        var words: String { self == .read ? "read" : "read and write" }
    }

    public func may(_ need: Need, _ file: FileInfo) -> Bool {
        if uid == 0 { return true }
        let shift: UInt32 = uid == file.owner ? 6 : (groups.contains(file.group) ? 3 : 0)
        return (file.mode >> shift) & need.bits == need.bits
    }
}

/// The person running `blesensor doctor`: ids of this process, and the user's name when
/// /etc/passwd has it. `sessionGroups` are the groups this login really has, which lag behind
/// /etc/group until the user logs in again.
public struct Invoker: Sendable, Equatable {
    public var uid: UInt32
    public var gid: UInt32
    public var sessionGroups: Set<UInt32>

    public init(uid: UInt32, gid: UInt32, sessionGroups: Set<UInt32>) {
        self.uid = uid
        self.gid = gid
        self.sessionGroups = sessionGroups
    }

    public var identity: ProcessIdentity { ProcessIdentity(uid: uid, groups: sessionGroups.union([gid])) }
}

/// A line of /etc/passwd.
public struct UserAccount: Sendable, Equatable {
    public var name: String
    public var uid: UInt32
    public var gid: UInt32

    public init(name: String, uid: UInt32, gid: UInt32) {
        self.name = name
        self.uid = uid
        self.gid = gid
    }
}

/// A line of /etc/group.
public struct GroupAccount: Sendable, Equatable {
    public var name: String
    public var gid: UInt32
    public var members: [String]

    public init(name: String, gid: UInt32, members: [String]) {
        self.name = name
        self.gid = gid
        self.members = members
    }
}

/// Users and groups as /etc/passwd and /etc/group of the doctor's root list them. Read from the
/// files rather than through getpwnam, so tests can fake them (and NSS sources such as LDAP, which
/// system users like blesensor never come from, are out of the picture). Parsing is total: a line
/// that is not `name:x:uid:gid:...` is skipped, never trusted in part.
public struct AccountDatabase: Sendable, Equatable {
    public var users: [UserAccount]
    public var groups: [GroupAccount]

    public init(users: [UserAccount], groups: [GroupAccount]) {
        self.users = users
        self.groups = groups
    }

    public init(root: SystemRoot) {
        self.init(passwd: root.readText("/etc/passwd") ?? "", group: root.readText("/etc/group") ?? "")
    }

    public init(passwd: String, group: String) {
        users = Self.records(passwd, minimumFields: 4).compactMap { fields in
            guard let uid = UInt32(fields[2]), let gid = UInt32(fields[3]) else { return nil }
            return UserAccount(name: fields[0], uid: uid, gid: gid)
        }
        groups = Self.records(group, minimumFields: 3).compactMap { fields in
            guard let gid = UInt32(fields[2]) else { return nil }
            let members = fields.count > 3
                ? fields[3].split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
                : []
            return GroupAccount(name: fields[0], gid: gid, members: members)
        }
    }

    /// The first entry wins, as for getpwnam.
    public func user(named name: String) -> UserAccount? { users.first { $0.name == name } }
    public func user(id: UInt32) -> UserAccount? { users.first { $0.uid == id } }
    public func group(named name: String) -> GroupAccount? { groups.first { $0.name == name } }
    public func group(id: UInt32) -> GroupAccount? { groups.first { $0.gid == id } }

    /// The user's primary group and every group listing it as a member: what a login (or systemd
    /// starting a unit with `User=`) gives the process.
    public func groupIDs(of user: UserAccount) -> Set<UInt32> {
        Set([user.gid] + groups.filter { $0.members.contains(user.name) }.map(\.gid))
    }

    public func isMember(_ user: UserAccount, of group: GroupAccount) -> Bool {
        user.gid == group.gid || group.members.contains(user.name)
    }

    public func groupName(_ gid: UInt32) -> String { group(id: gid)?.name ?? String(gid) }
    public func userName(_ uid: UInt32) -> String { user(id: uid)?.name ?? String(uid) }

    /// Colon-separated records with a non-empty name; comments, NIS `+`/`-` lines and short lines skipped.
    private static func records(_ text: String, minimumFields: Int) -> [[String]] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).compactMap { line in
            guard let first = line.first, first != "#", first != "+", first != "-" else { return nil }
            let fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= minimumFields, !fields[0].isEmpty else { return nil }
            return fields
        }
    }
}

import Bonding
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the bond database (it holds long-term keys) readable by its owner only.
enum DatabaseFile {
    /// SQLite gives the -wal, -shm and -journal files the main file's mode, so creating the main file 0600 before
    /// SQLite opens it covers them; sidecars left by an older, looser file are tightened too.
    static let sidecarSuffixes = ["", "-wal", "-shm", "-journal"]

    /// Creates `path` with mode 0600 if it does not exist, and tightens an existing file (and its sidecars) that
    /// group or others could read: refusing to start would leave a sensor without its bonds over a mode bit,
    /// while tightening keeps the keys private. Throws `.permissions` when this user cannot change the mode.
    static func prepare(_ path: String) throws(BondStoreError) {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw .cannotOpen(path: path, reason: systemError())
        }
        for suffix in sidecarSuffixes {
            try restrict(path + suffix)
        }
    }

    private static func restrict(_ file: String) throws(BondStoreError) {
        var info = stat()
        guard stat(file, &info) == 0 else {
            if errno == ENOENT { return }
            throw .cannotOpen(path: file, reason: systemError())
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .cannotOpen(path: file, reason: "it is not a regular file")
        }
        let mode = UInt32(info.st_mode & 0o7777)
        guard mode & 0o077 != 0 else { return }
        guard chmod(file, 0o600) == 0 else { throw .permissions(path: file, mode: mode) }
    }

    static func systemError() -> String {
        String(cString: strerror(errno))
    }
}

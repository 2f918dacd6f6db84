#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The socket's path and the inode bind() created there, so shutdown removes our socket and never a
/// successor's that replaced it.
struct SocketFile: Sendable {
    let path: String
    let device: UInt64
    let inode: UInt64

    /// Identifies the socket file now at `path`; nil if there is none.
    init?(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        self.path = path
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    func removeIfStillOurs() {
        var info = stat()
        guard lstat(path, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else { return }
        _ = unlink(path)
    }
}

/// Preparing the path before bind: the directory, and whatever a previous run left there.
enum SocketPath {
    /// mkdir -p of the socket's parent directory; existing directories keep their mode.
    static func ensureParentDirectory(of path: String, mode: mode_t) throws(ControlServerError) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return }
        let parent = String(path[..<slash])
        guard !parent.isEmpty else { return }
        var prefix = parent.hasPrefix("/") ? "" : "."
        for component in parent.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0, errno != EEXIST {
                let code = errno
                throw .directoryFailed(path: prefix, errno: code, message: Posix.message(code))
            }
        }
        var info = stat()
        guard stat(parent, &info) == 0 else {
            let code = errno
            throw .directoryFailed(path: parent, errno: code, message: Posix.message(code))
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .directoryFailed(path: parent, errno: ENOTDIR, message: Posix.message(ENOTDIR))
        }
    }

    /// Removes a socket file nobody answers on (left by a crashed daemon); refuses if a server answers
    /// or the path is not a socket at all.
    static func clearStale(_ path: String, address: UnixSocketAddress) throws(ControlServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw .systemCallFailed(operation: "inspect", path: path, errno: code, message: Posix.message(code))
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }

        // Non-blocking, so a live server with a full backlog (EAGAIN) cannot stall startup; it still answers.
        let probe = Posix.unixStreamSocket(nonBlocking: true)
        guard probe >= 0 else {
            let code = errno
            throw .systemCallFailed(operation: "create a probe for", path: path, errno: code, message: Posix.message(code))
        }
        let result = address.connect(probe)
        let code = errno
        Posix.close(probe)
        if result == 0 || code == EAGAIN || code == EINPROGRESS { throw .alreadyRunning(path: path) }
        guard code == ECONNREFUSED else {
            throw .systemCallFailed(operation: "probe", path: path, errno: code, message: Posix.message(code))
        }
        if unlink(path) != 0, errno != ENOENT {
            let code = errno
            throw .systemCallFailed(operation: "remove the stale", path: path, errno: code, message: Posix.message(code))
        }
    }
}

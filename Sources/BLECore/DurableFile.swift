#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Small state files replaced so that a crash or a power cut leaves the old contents or the new,
/// never a mix, and the new once `replace` returns: a temporary file, fsync, rename over the final
/// name, fsync of the directory (without which the rename itself could be lost).
public enum DurableFile {
    /// Which step failed, with errno, so each caller can word its own advice.
    public enum Failure: Error, Equatable, Sendable {
        case cannotCreate(errno: Int32)
        case cannotWrite(errno: Int32)
        case cannotOpenDirectory(String, errno: Int32)
        case cannotSyncDirectory(String, errno: Int32)
    }

    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t) throws(Failure) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .cannotCreate(errno: errno) }
        var failure: Int32? = nil
        var offset = 0
        while offset < bytes.count, failure == nil {
            let count = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { offset += count } else if count < 0, errno == EINTR { continue } else { failure = count < 0 ? errno : EIO }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw .cannotWrite(errno: failure)
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let name = directory.isEmpty ? "/" : directory
        let directoryDescriptor = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw .cannotOpenDirectory(name, errno: errno) }
        defer { close(directoryDescriptor) }
        // Some file systems cannot sync a directory (EINVAL); the rename is then as durable as they make it.
        if fsync(directoryDescriptor) != 0, errno != EINVAL { throw .cannotSyncDirectory(name, errno: errno) }
    }
}

/// write(2) under a name that does not collide with other `write`s in scope.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

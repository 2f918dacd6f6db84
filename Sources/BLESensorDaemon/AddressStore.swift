import BLECore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the peripheral's random static address across restarts, so bonded centrals still find it.
public struct AddressStore: Sendable {
    public let directory: String
    public var path: String { directory + "/random-static-address" }

    public init(directory: String) { self.directory = directory }

    /// The stored address, or a new one written atomically when none exists yet.
    public func loadOrCreate() throws(DaemonError) -> BluetoothAddress {
        if let text = try readFile() {
            let trimmed = text.trimmingWhitespace
            guard let address = BluetoothAddress(trimmed), address.isValidRandomStatic else {
                // Never a silent new identity: centrals bonded to the old one would no longer find us.
                let found = trimmed.isEmpty ? "is empty" : "holds '\(trimmed.printableExcerpt())'"
                throw .damagedStateFile(path: path, reason: "\(found), not a random static address like C1:23:45:67:89:AB: put this board's address back (from a backup), or delete the file to generate a new one (bonded centrals will then have to pair again)")
            }
            return address
        }
        let address = BluetoothAddress.randomStatic()
        try write(address.description + "\n")
        return address
    }

    private func readFile() throws(DaemonError) -> String? {
        switch BoundedFile.read(path, limit: 4096) {
        case let .success(bytes): return String(decoding: bytes, as: UTF8.self)
        case let .failure(failure) where failure.code == ENOENT: return nil
        case let .failure(failure): throw .stateFile(path: path, reason: "cannot be read: \(failure)")
        }
    }

    /// Temporary file, fsync, rename over the final name, fsync the directory: after a crash or a
    /// power cut the file holds the whole address or does not exist, and once this returns the
    /// address survives one (without the directory fsync the rename itself could be lost, and the
    /// next start would silently pick a new identity).
    private func write(_ text: String) throws(DaemonError) {
        try makeDirectories()
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .stateFile(path: path, reason: "cannot be created: \(String(cString: strerror(errno))); pass --state-dir with a writable directory")
        }
        var failure: Int32? = nil
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count, failure == nil {
            let count = bytes[offset...].withUnsafeBytes { writeBytes(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { offset += count } else if count < 0, errno == EINTR { continue } else { failure = count < 0 ? errno : EIO }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw .stateFile(path: path, reason: "cannot be written: \(String(cString: strerror(failure))); check the file system has room and is writable")
        }
        try syncDirectory()
    }

    private func syncDirectory() throws(DaemonError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .stateFile(path: path, reason: "directory \(directory) cannot be opened to make the new file durable: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        // Some file systems cannot sync a directory (EINVAL); the rename is then as durable as they make it.
        if fsync(descriptor) != 0, errno != EINVAL {
            throw .stateFile(path: path, reason: "directory \(directory) cannot be synced: \(String(cString: strerror(errno))); check the file system")
        }
    }

    func makeDirectories() throws(DaemonError) {
        var current = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw .stateFile(path: path, reason: "directory \(current) cannot be created: \(String(cString: strerror(errno))); pass --state-dir with a writable directory")
            }
        }
    }
}

/// write(2) under a name that does not collide with `AddressStore.write(_:)`.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

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
        do {
            try DurableFile.replace(path, with: Array(text.utf8), mode: 0o644)
        } catch {
            let reason = switch error {
            case let .cannotCreate(code):
                "cannot be created: \(String(cString: strerror(code))); pass --state-dir with a writable directory"
            case let .cannotWrite(code):
                "cannot be written: \(String(cString: strerror(code))); check the file system has room and is writable"
            case let .cannotOpenDirectory(directory, code):
                "directory \(directory) cannot be opened to make the new file durable: \(String(cString: strerror(code)))"
            case let .cannotSyncDirectory(directory, code):
                "directory \(directory) cannot be synced: \(String(cString: strerror(code))); check the file system"
            }
            throw .stateFile(path: path, reason: reason)
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

extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

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
                throw .stateFile(path: path, reason: "holds '\(trimmed.prefix(40))', not a random static address; delete the file to generate a new address (bonded centrals will have to pair again)")
            }
            return address
        }
        let address = BluetoothAddress.randomStatic()
        try write(address.description + "\n")
        return address
    }

    private func readFile() throws(DaemonError) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .stateFile(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while bytes.count < 4096 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .stateFile(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func write(_ text: String) throws(DaemonError) {
        try makeDirectories()
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .stateFile(path: path, reason: "cannot be created: \(String(cString: strerror(errno))); pass --state-dir with a writable directory")
        }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .stateFile(path: path, reason: "cannot be written: \(String(cString: strerror(errno)))")
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

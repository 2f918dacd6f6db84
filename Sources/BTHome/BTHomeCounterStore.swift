import BLECore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The encryption counter of BTHome advertisements: it only increases, across restarts and crashes.
///
/// The file holds one decimal number, the first counter not yet reserved. Counters are reserved in
/// blocks: before the first counter of a block is used, the end of the block is written to disk
/// (temporary file, fsync, rename, directory fsync). A crash therefore skips at most the rest of a
/// block and never reuses a counter. A damaged file stops encryption with an error rather than
/// guess: guessing low would reuse nonces, which breaks AES-CCM. A missing file (a new or lost
/// state directory) starts at the wall clock's Unix seconds, not 0: at no more than one packet a
/// second, the counters sent before under the same bindkey are all below it.
///
/// A value: its owner keeps the one copy in use. `next()` writes a file when `reservesOnNext`, so
/// its owner runs it off the Swift concurrency threads then (and never on a sensor thread).
public struct BTHomeCounterStore: Sendable {
    public let path: String
    public let blockSize: UInt32
    private var nextCounter: UInt32
    private var reservedUntil: UInt32
    /// Whether there was no file and the counter started at the wall clock.
    public let startedFromWallClock: Bool

    /// Whether the next `next()` writes the file (the start of a new block).
    public var reservesOnNext: Bool { nextCounter == reservedUntil }

    public init(path: String, blockSize: UInt32 = 1024,
                wallClock: () -> UInt32 = BTHomeCounterStore.unixSeconds) throws(BTHomeCounterError) {
        precondition(blockSize > 0)
        self.path = path
        self.blockSize = blockSize
        let stored = try Self.read(path)
        startedFromWallClock = stored == nil
        let start = stored ?? wallClock()
        nextCounter = start
        reservedUntil = start
    }

    /// Seconds since 1970 now (UInt32 holds them until 2106).
    public static func unixSeconds() -> UInt32 {
        UInt32(clamping: time(nil))
    }

    /// The next counter, reserving a new block on disk first when the current one is used up.
    public mutating func next() throws(BTHomeCounterError) -> UInt32 {
        if nextCounter == reservedUntil {
            guard reservedUntil < UInt32.max else { throw .exhausted(path: path) }
            let end = reservedUntil &+ min(blockSize, UInt32.max - reservedUntil)
            try Self.write(end, to: path)
            reservedUntil = end
        }
        defer { nextCounter += 1 }
        return nextCounter
    }

    /// The stored counter; nil when there is no file.
    static func read(_ path: String) throws(BTHomeCounterError) -> UInt32? {
        switch BoundedFile.read(path, limit: 64) {
        case let .success(bytes):
            var text = String(decoding: bytes, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt32(text) else {
                throw .damaged(path: path, found: text.printableExcerpt())
            }
            return value
        case let .failure(failure) where failure.isMissing:
            return nil
        case let .failure(failure):
            throw .unreadable(path: path, reason: failure.description)
        }
    }

    static func write(_ value: UInt32, to path: String) throws(BTHomeCounterError) {
        // Durable before use: without the directory sync a power cut could lose the rename and
        // hand the old block out again.
        do {
            try DurableFile.replace(path, with: Array("\(value)\n".utf8), mode: 0o600)
        } catch {
            let code: Int32 = switch error {
            case let .cannotCreate(code), let .cannotWrite(code), let .cannotOpenDirectory(_, code), let .cannotSyncDirectory(_, code): code
            }
            throw .unwritable(path: path, reason: String(cString: strerror(code)))
        }
    }
}

/// Why no encryption counter can be handed out; each message says how to fix it.
public enum BTHomeCounterError: Error, Equatable, Sendable, CustomStringConvertible {
    case damaged(path: String, found: String)
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)
    case exhausted(path: String)

    public var description: String {
        switch self {
        case let .damaged(path, found):
            "\(path) holds '\(found)', not the BTHome encryption counter (a decimal number): encrypted broadcasts stop "
                + "rather than reuse a counter; write a number above any counter sent before "
                + "into it, or make a new bindkey (and give it to Home Assistant) and delete the file"
        case let .unreadable(path, reason):
            "\(path) (the BTHome encryption counter) cannot be read: \(reason)"
        case let .unwritable(path, reason):
            "\(path) (the BTHome encryption counter) cannot be written: \(reason); check the state directory is writable and has room"
        case let .exhausted(path):
            "every BTHome encryption counter has been used (\(path)): make a new bindkey, then delete the file"
        }
    }
}

import BLECore

/// Why a bond store could not do what was asked, worded for the person running the daemon.
public enum BondStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be created or opened at all (missing directory, ownership, disk).
    case cannotOpen(path: String, reason: String)
    /// The file is not an SQLite database, or fails its integrity check.
    case corrupt(path: String, reason: String)
    /// The file is readable by group or others and this user cannot restrict it to 0600.
    case permissions(path: String, mode: UInt32)
    /// Saving one more bond would exceed the store's bound.
    case full(max: Int)
    /// SQLite failed while the store was open (disk full, I/O error, closed store); never carries a key.
    case databaseFailure(String)
    case notBonded(DeviceAddress)
    /// A caller passed a value the store cannot keep (a programming error in the caller).
    case invalidArgument(String)
    /// The calling task was cancelled before the operation completed; nothing was changed.
    case cancelled

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            return "bond database \(path) cannot be opened: \(reason); check that its directory exists and that it "
                + "is owned by the blesensor user, or remove it to forget all bonds (bonded devices must pair again)"
        case let .corrupt(path, reason):
            return "bond database \(path) is corrupt or not a bond database (\(reason)); move it aside or remove "
                + "it to forget all bonds (bonded devices must pair again)"
        case let .permissions(path, mode):
            return "bond database \(path) has mode \(String(mode & 0o7777, radix: 8)) (readable beyond its owner) "
                + "and cannot be restricted to 600 by this user; chown it to the blesensor user and chmod 600 it"
        case let .full(max):
            return "the bond store is full (\(max) bonds); remove a bond or replace the least recently used one"
        case let .databaseFailure(message):
            return "bond database failure: \(message)"
        case let .notBonded(identity):
            return "no bond with \(identity); the device must pair first"
        case let .invalidArgument(reason):
            return "invalid bond store request: \(reason)"
        case .cancelled:
            return "the bond store operation was cancelled before it completed; nothing was changed"
        }
    }
}

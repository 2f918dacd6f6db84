import BLECore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What is wrong with the bond store, for `status` and `doctor`: what opening it found (a corrupt
/// file moved aside, unreadable rows, a read-only file system) and what fails while the daemon runs
/// (store-and-forward writes). Also the free-space check the pairing path asks before a new bond.
final class BondStoreHealth: Sendable {
    /// What statvfs says of the state directory's file system, nil when it cannot be read.
    struct Storage: Sendable, Equatable {
        var availableBytes: UInt64
        var readOnly: Bool
    }
    typealias StorageProbe = @Sendable (_ directory: String) -> Storage?

    /// Below this a new bond is refused: SQLite's WAL needs a few pages per commit, and a bond that
    /// pairs but cannot be stored leaves the phone bonded to a device that forgot it.
    static let minimumFreeBytesForBond: UInt64 = 1 << 20

    private struct State {
        var startup: [String]
        /// Measurements not kept since the last write that worked, and the latest reason.
        var unkept = 0
        var unkeptReason = ""
        /// One statvfs at a time: on a hung SD card a thread per Pairing Request would pile up.
        var probing = false
        var lastStorage: Storage? = nil
    }

    let stateDirectory: String
    /// Bonds live in memory only (read-only state directory): nothing is written, no space needed.
    let inMemory: Bool
    private let storage: StorageProbe
    private let state: Mutex<State>

    init(stateDirectory: String, startupProblems: [String] = [], inMemory: Bool = false,
         storage: @escaping StorageProbe = BondStoreHealth.storage) {
        self.stateDirectory = stateDirectory
        self.inMemory = inMemory
        self.storage = storage
        self.state = Mutex(State(startup: startupProblems))
    }

    /// Every current problem, oldest kind first.
    var problems: [String] {
        state.withLock { state in
            guard state.unkept > 0 else { return state.startup }
            return state.startup + ["store-and-forward: \(state.unkept) measurement(s) for absent centrals not kept "
                + "since the last write that worked (\(state.unkeptReason))"]
        }
    }

    func addStartupProblems(_ problems: [String]) {
        state.withLock { $0.startup += problems }
    }

    /// Store-and-forward could not keep `lost` measurements; shown until a write works again.
    func storeAndForwardFailed(lost: Int, because reason: String) {
        state.withLock { state in
            state.unkept += lost
            state.unkeptReason = reason
        }
    }

    func storeAndForwardWorks() {
        state.withLock { $0.unkept = 0 }
    }

    /// Nil when a new bond can be stored, else why not (for the Pairing Failed log line). Reads the
    /// file system on a thread of its own, one read at a time: a dying SD card can make even statvfs
    /// slow, and a request arriving meanwhile is judged by the last answer.
    func refusalForNewBond() async -> String? {
        guard !inMemory else {
            // A bond only in memory is gone at the next start, and the phone keeps its half.
            return "\(stateDirectory) is on a read-only file system, so a new bond would be lost at the next start; "
                + "make it writable and restart blesensord, then pair"
        }
        let directory = stateDirectory, probe = storage
        let (start, cached) = state.withLock { state -> (Bool, Storage?) in
            if state.probing { return (false, state.lastStorage) }
            state.probing = true
            return (true, nil)
        }
        let found: Storage?
        if start {
            found = await DedicatedThread.run { probe(directory) }
            state.withLock { $0.probing = false; $0.lastStorage = found }
        } else {
            found = cached
        }
        guard let found else { return nil }
        if found.readOnly {
            return "\(directory) became read-only (the kernel remounts a failing SD card read-only), so the bond could not be "
                + "stored; check the card (dmesg), then restart blesensord"
        }
        guard found.availableBytes < Self.minimumFreeBytesForBond else { return nil }
        return "only \(found.availableBytes / 1024) KiB free in \(directory) (a new bond needs \(Self.minimumFreeBytesForBond / 1024) KiB); "
            + "free some space, then pair again"
    }

    /// Bytes an unprivileged writer may still use (root's reserve does not count: we run as
    /// blesensor), and whether the file system is mounted read-only now.
    @Sendable static func storage(of directory: String) -> Storage? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Storage(availableBytes: UInt64(info.f_bavail) * UInt64(info.f_frsize), readOnly: info.f_flag & UInt(ST_RDONLY) != 0)
    }

    /// Whether the file system holding `directory` is mounted read-only (EROFS on every write,
    /// even for root: an SD card the kernel remounted after errors, or an overlay-root image).
    static func isReadOnly(_ directory: String) -> Bool {
        storage(of: directory)?.readOnly ?? false
    }
}

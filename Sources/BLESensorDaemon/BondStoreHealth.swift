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
    /// Free bytes in the state directory's file system, nil when they cannot be read.
    typealias FreeSpaceProbe = @Sendable (_ directory: String) -> UInt64?

    /// Below this a new bond is refused: SQLite's WAL needs a few pages per commit, and a bond that
    /// pairs but cannot be stored leaves the phone bonded to a device that forgot it.
    static let minimumFreeBytesForBond: UInt64 = 1 << 20

    private struct State {
        var startup: [String]
        /// Measurements not kept since the last write that worked, and the latest reason.
        var unkept = 0
        var unkeptReason = ""
    }

    let stateDirectory: String
    /// Bonds live in memory only (read-only state directory): nothing is written, no space needed.
    let inMemory: Bool
    private let freeSpace: FreeSpaceProbe
    private let state: Mutex<State>

    init(stateDirectory: String, startupProblems: [String] = [], inMemory: Bool = false,
         freeSpace: @escaping FreeSpaceProbe = BondStoreHealth.availableBytes) {
        self.stateDirectory = stateDirectory
        self.inMemory = inMemory
        self.freeSpace = freeSpace
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
    /// file system on a thread of its own: a dying SD card can make even statvfs slow.
    func refusalForNewBond() async -> String? {
        guard !inMemory else { return nil }
        let directory = stateDirectory, probe = freeSpace
        guard let free = await DedicatedThread.run({ probe(directory) }) else { return nil }
        guard free < Self.minimumFreeBytesForBond else { return nil }
        return "only \(free / 1024) KiB free in \(directory) (a new bond needs \(Self.minimumFreeBytesForBond / 1024) KiB); "
            + "free some space, then pair again"
    }

    /// Bytes an unprivileged writer may still use (root's reserve does not count: we run as blesensor).
    @Sendable static func availableBytes(in directory: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Whether the file system holding `directory` is mounted read-only (EROFS on every write,
    /// even for root: an SD card the kernel remounted after errors, or an overlay-root image).
    static func isReadOnly(_ directory: String) -> Bool {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }
}

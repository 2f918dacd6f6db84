#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the kernel says about the local Bluetooth adapters: which exist (sysfs), their rfkill
/// switches (sysfs) and whether they are up (an HCI socket). Used when taking an adapter for the
/// user channel and by diagnostics; every sysfs read is total (missing, unreadable or malformed
/// files give an `AdapterProbeError`, never a trap).
///
/// Calling context: every method makes blocking system calls; call them from a dedicated thread.
public struct BluetoothAdapterProbe: Sendable {
    /// Where sysfs is mounted: `/sys`, or a test's directory tree shaped like it.
    public var sysfsRoot: String
    public var calls: any HCISystemCalls

    public init(sysfsRoot: String = "/sys", calls: any HCISystemCalls = LinuxHCISystemCalls()) {
        self.sysfsRoot = sysfsRoot.count > 1 && sysfsRoot.hasSuffix("/") ? String(sysfsRoot.dropLast()) : sysfsRoot
        self.calls = calls
    }

    /// One local adapter, `hciN`.
    public struct Adapter: Sendable, Equatable, CustomStringConvertible {
        public var index: UInt16
        public var name: String { "hci\(index)" }
        public var description: String { name }

        public init(index: UInt16) { self.index = index }
    }

    var classDirectory: String { sysfsRoot + "/class/bluetooth" }

    func adapterDirectory(_ index: UInt16) -> String { classDirectory + "/hci\(index)" }

    /// The adapters the kernel has, by index. Empty when the kernel has none or no Bluetooth at all.
    /// (Connections appear in the same directory as `hci0:12` and are not adapters.)
    public func adapters() throws(AdapterProbeError) -> [Adapter] {
        switch SysfsFile.names(in: classDirectory) {
        case let .failure(error): throw .unreadable(path: classDirectory, error)
        case .success(nil): return []
        case let .success(names?):
            return names.compactMap { SysfsFile.number(in: $0, after: "hci", as: UInt16.self) }.sorted().map(Adapter.init)
        }
    }

    /// Whether `hciN` exists.
    public func exists(_ index: UInt16) throws(AdapterProbeError) -> Bool {
        try adapters().contains(Adapter(index: index))
    }

    /// The adapter's rfkill switch; nil when it has none (the driver registered no switch).
    public func rfkillState(of index: UInt16) throws(AdapterProbeError) -> RfkillSwitch? {
        let directory = adapterDirectory(index)
        let names: [String]
        switch SysfsFile.names(in: directory) {
        case let .failure(error): throw .unreadable(path: directory, error)
        case .success(nil): throw .noSuchAdapter("hci\(index)")
        case let .success(list?): names = list
        }
        // One switch per adapter; should a driver ever register more, the first one is reported.
        guard let switchIndex = names.compactMap({ SysfsFile.number(in: $0, after: "rfkill", as: UInt32.self) }).min() else {
            return nil
        }
        let switchDirectory = "\(directory)/rfkill\(switchIndex)"
        return RfkillSwitch(index: switchIndex,
                            name: try optionalText(switchDirectory + "/name"),
                            type: try optionalText(switchDirectory + "/type"),
                            softBlocked: try flag(switchDirectory + "/soft"),
                            hardBlocked: try flag(switchDirectory + "/hard"))
    }

    /// Whether `hciN` is up (powered, in use by the kernel's stack or a user channel).
    public func isUp(_ index: UInt16) throws(AdapterProbeError) -> Bool {
        let socket: Int32
        switch calls.openSocket() {
        case let .success(descriptor): socket = descriptor
        case let .failure(error) where error.code == EAFNOSUPPORT || error.code == EPROTONOSUPPORT:
            throw .bluetoothUnsupported(error)
        case let .failure(error): throw .systemCallFailed(operation: "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)", error)
        }
        defer { calls.close(socket) }
        switch calls.isUp(socket, index: index) {
        case let .success(up): return up
        case let .failure(error) where error.code == ENODEV: throw .noSuchAdapter("hci\(index)")
        case let .failure(error): throw .systemCallFailed(operation: "HCIGETDEVINFO hci\(index)", error)
        }
    }

    /// `0` or `1` (the kernel writes one digit and a newline).
    private func flag(_ path: String) throws(AdapterProbeError) -> Bool {
        switch SysfsFile.text(at: path) {
        case let .failure(error): throw .unreadable(path: path, error)
        case .success(nil): throw .unreadable(path: path, SystemErrno(ENOENT))
        case let .success(text?):
            switch text.trimmingWhitespace {
            case "0": return false
            case "1": return true
            case let other: throw .malformed(path: path, content: other, expected: "0 or 1")
            }
        }
    }

    /// A descriptive attribute: empty when missing, printable text only.
    private func optionalText(_ path: String) throws(AdapterProbeError) -> String {
        switch SysfsFile.text(at: path) {
        case let .failure(error): throw .unreadable(path: path, error)
        case .success(nil): return ""
        case let .success(text?):
            let trimmed = text.trimmingWhitespace
            return String(trimmed.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(64).map(Character.init))
        }
    }
}

extension String {
    /// Without the newline (and any NUL) the kernel ends attribute files with.
    fileprivate var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace || first == "\0" { text.removeFirst() }
        while let last = text.last, last.isWhitespace || last == "\0" { text.removeLast() }
        return String(text)
    }
}

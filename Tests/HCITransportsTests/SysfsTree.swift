import Foundation

/// A temporary directory shaped like /sys for the adapter probe: `/class/bluetooth/hciN` with an
/// optional `rfkillM` switch. Removed when the tree is released.
final class SysfsTree: @unchecked Sendable {
    let root: String

    init() {
        var template = Array((NSTemporaryDirectory() + "sysfs-XXXXXX").utf8CString)
        root = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var bluetooth: String { root + "/class/bluetooth" }

    /// Adds hciN; with `rfkill`, its switch `rfkillM` with the kernel's attribute files.
    func addAdapter(_ index: Int, rfkill: (index: Int, soft: Bool, hard: Bool)? = nil) {
        let directory = "\(bluetooth)/hci\(index)"
        makeDirectory(directory)
        if let rfkill {
            let switchDirectory = "\(directory)/rfkill\(rfkill.index)"
            makeDirectory(switchDirectory)
            write("\(switchDirectory)/name", "hci\(index)\n")
            write("\(switchDirectory)/type", "bluetooth\n")
            write("\(switchDirectory)/soft", rfkill.soft ? "1\n" : "0\n")
            write("\(switchDirectory)/hard", rfkill.hard ? "1\n" : "0\n")
        }
    }

    func makeDirectory(_ path: String) {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ path: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    func write(_ path: String, bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

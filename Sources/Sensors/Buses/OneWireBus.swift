import Foundation

/// Why a 1-Wire (w1 sysfs) access failed.
public enum OneWireError: Error, Equatable, Sendable, CustomStringConvertible {
    case busMissing(root: String)
    case deviceNotFound(id: String, root: String)
    case noDevices(family: String, root: String)
    case readFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .busMissing(root):
            return "\(root) does not exist: enable 1-Wire (dtoverlay=w1-gpio in config.txt, then reboot)"
        case let .deviceNotFound(id, root):
            return "1-Wire device \(id) not found under \(root): check wiring, the 4.7 kΩ pull-up and the id (ls \(root))"
        case let .noDevices(family, root):
            return "no 1-Wire devices of family \(family) under \(root): check wiring and the 4.7 kΩ pull-up"
        case let .readFailed(path, reason):
            return "reading \(path) failed: \(reason)"
        }
    }
}

/// The kernel w1 bus as exposed in sysfs; the root is injectable so tests use a temp tree.
public struct OneWireBus: Sendable {
    public static let defaultRoot = "/sys/bus/w1/devices"
    public let root: String

    public init(root: String = OneWireBus.defaultRoot) {
        self.root = root
    }

    /// Device ids (e.g. "28-0316a2795dff") whose family prefix matches, sorted.
    public func devices(family: String) throws(OneWireError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: root)
        } catch {
            throw .busMissing(root: root)
        }
        return names.filter { $0.hasPrefix(family + "-") }.sorted()
    }

    /// Reads a device attribute file such as w1_slave (reading it triggers a conversion in the kernel).
    public func read(id: String, attribute: String) throws(OneWireError) -> String {
        guard !id.contains("/"), !id.contains("..") else { throw .deviceNotFound(id: id, root: root) }
        let directory = root + "/" + id
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            if !FileManager.default.fileExists(atPath: root) { throw .busMissing(root: root) }
            throw .deviceNotFound(id: id, root: root)
        }
        let path = directory + "/" + attribute
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .readFailed(path: path, reason: "file missing or unreadable (device may have been unplugged)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .readFailed(path: path, reason: "contents are not text")
        }
        return text
    }
}

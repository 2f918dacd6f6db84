import BLECore
import BridgeConfiguration
import Foundation

extension ServiceDeviceAccess {
    enum WriteError: Error, CustomStringConvertible {
        case cannotWrite(path: String, reason: String)
        var description: String {
            switch self {
            case let .cannotWrite(path, reason): return "cannot write \(path): \(reason)"
            }
        }
    }

    /// Writes `text` as the drop-in under a generator's output directory (blocking: call it from a
    /// dedicated thread or a process that does nothing else).
    static func write(_ text: String, toGeneratorDirectory directory: String) throws(WriteError) {
        let path = directory + "/" + dropInName
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw .cannotWrite(path: path, reason: "\(error.localizedDescription)")
        }
    }

    static func groupExists(_ name: String) -> Bool { getgrnam(name) != nil }
}

/// `blesensord --write-device-policy DIR`, run by the package's systemd generator, and the check a
/// starting daemon makes that the generated drop-in still matches its configuration.
public enum DevicePolicy {
    /// Writes the drop-in for `loaded` under `directory`; a refused configuration allows no sensor
    /// device (the daemon will not start with it anyway). Returns the process exit status.
    public static func generate(_ loaded: Result<BridgeConfiguration, ConfigurationProblems>, source: String, directory: String) -> Int32 {
        let text: String
        switch loaded {
        case let .success(configuration):
            text = ServiceDeviceAccess(configuration).dropIn(source: source, groupExists: ServiceDeviceAccess.groupExists)
        case let .failure(problems):
            text = ServiceDeviceAccess.refusedConfigurationDropIn(source: source, problems: problems.problems.count)
        }
        do throws(ServiceDeviceAccess.WriteError) {
            try ServiceDeviceAccess.write(text, toGeneratorDirectory: directory)
            return 0
        } catch {
            FileHandle.standardError.write(Data("blesensord: \(error)\n".utf8))
            return 1
        }
    }

    /// What to log when the drop-in systemd generated no longer matches `configuration`.
    public static func staleWarning(for configuration: BridgeConfiguration, source: String) async -> String? {
        await DedicatedThread.run {
            let expected = ServiceDeviceAccess(configuration).dropIn(source: source, groupExists: ServiceDeviceAccess.groupExists)
            // No generated file: not the packaged service, nothing to compare.
            let generated = try? String(contentsOfFile: ServiceDeviceAccess.generatedPath, encoding: .utf8)
            return ServiceDeviceAccess.staleDropInWarning(expected: expected, generated: generated)
        }
    }
}

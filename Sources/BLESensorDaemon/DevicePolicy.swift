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

    /// From /etc/group itself, not through NSS: a generator runs while PID 1 waits for it, and
    /// must not talk to nss-systemd, sssd or LDAP (systemd.generator(7)).
    static func groupExists(_ name: String, groupFile: String = "/etc/group") -> Bool {
        guard let text = try? String(contentsOfFile: groupFile, encoding: .utf8) else { return false }
        return text.split(separator: "\n").contains { $0.split(separator: ":", maxSplits: 1).first.map(String.init) == name }
    }
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
            text = ServiceDeviceAccess(configuration).dropIn(source: source, groupExists: { ServiceDeviceAccess.groupExists($0) })
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
            let expected = ServiceDeviceAccess(configuration).dropIn(source: source, groupExists: { ServiceDeviceAccess.groupExists($0) })
            let generated = try? String(contentsOfFile: ServiceDeviceAccess.generatedPath, encoding: .utf8)
            guard generated != nil || !FileManager.default.fileExists(atPath: ServiceDeviceAccess.generatorPath) else {
                // Packaged, yet no drop-in: the generator failed or has not run. Every sensor open
                // would fail with EPERM and nothing else would say why.
                return "systemd has no device drop-in for this service (\(ServiceDeviceAccess.generatedPath)): its generator "
                    + "\(ServiceDeviceAccess.generatorPath) failed or has not run, so no sensor device may be opened; "
                    + "run `sudo systemctl daemon-reload && sudo systemctl restart blesensord`, and if it stays missing, "
                    + "`journalctl -b | grep blesensord-devices` says why"
            }
            // No generated file and no generator: not the packaged service, nothing to compare.
            return ServiceDeviceAccess.staleDropInWarning(expected: expected, generated: generated)
        }
    }
}

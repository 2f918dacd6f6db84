#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Files that hold a secret (a fixed passkey): read, and checked for who else may read them.
public enum SecretFile {
    /// Six digits, optionally followed by a newline; anything else is a message saying what is wrong.
    static func passkey(at path: String) -> Result<UInt32, SecretFileProblem> {
        var info = stat()
        if stat(path, &info) != 0, errno == ENOENT {
            return .failure(SecretFileProblem("\(path) does not exist: write the six digits into it, then chown root:blesensor and chmod 0640 it"))
        }
        let text: String
        switch YAMLDocument.contents(path: path) {
        case let .success(contents): text = contents
        case let .failure(problem): return .failure(SecretFileProblem(problem.message))
        }
        let digits = text.hasSuffix("\n") ? String(text.dropLast()) : text
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt32(digits) else {
            return .failure(SecretFileProblem("\(path) must hold exactly six digits (a passkey like 012345) and nothing else"))
        }
        return .success(value)
    }

    /// A password on one line (a final newline is not part of it): the MQTT broker's, read from
    /// `password-file` so that it never sits in the YAML.
    static func password(at path: String) -> Result<String, SecretFileProblem> {
        var info = stat()
        if stat(path, &info) != 0, errno == ENOENT {
            return .failure(SecretFileProblem("\(path) does not exist: write the password into it, then chown root:blesensor and chmod 0640 it"))
        }
        let text: String
        switch YAMLDocument.contents(path: path) {
        case let .success(contents): text = contents
        case let .failure(problem): return .failure(SecretFileProblem(problem.message))
        }
        let password = text.hasSuffix("\n") ? String(text.dropLast()) : text
        guard !password.isEmpty, !password.contains("\n"), !password.contains("\0"), password.utf8.count <= 65_535 else {
            return .failure(SecretFileProblem("\(path) must hold the password on one line (1…65535 bytes) and nothing else"))
        }
        return .success(password)
    }

    /// Why the file holding the passkey (or `secret`) is readable by people who should not see it,
    /// with the fix; nil when only its owner and group may read it (or it cannot be examined).
    public static func exposure(of path: String, holding secret: String = "the passkey") -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = info.st_mode & 0o7777
        guard mode & 0o006 != 0 else { return nil }
        let octal = String(mode, radix: 8)
        return "\(path) holds \(secret) and every user on this system may read it (mode 0\(octal)): "
            + "chown root:blesensor \(path) && chmod 0640 \(path)"
    }

    /// The files of this configuration that hold a fixed passkey: the passkey file, or the
    /// configuration file itself when the passkey is written in it.
    public static func passkeyHolders(configurationPath: String, _ settings: SecuritySettings) -> [String] {
        guard case .fixed = settings.passkey else { return [] }
        return [settings.passkeyFile ?? configurationPath]
    }
}

extension SecretFile {
    /// The MQTT broker's password file of this configuration, if it has one.
    public static func mqttPasswordHolders(_ configuration: BridgeConfiguration) -> [String] {
        configuration.mqtt?.passwordFile.map { [$0] } ?? []
    }
}

/// What is wrong with a secret file, said so that it can be fixed.
struct SecretFileProblem: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}

extension SecretFile {
    /// A BTHome bindkey: 32 hex digits (16 octets), optionally followed by a newline.
    static func bindkey(at path: String) -> Result<[UInt8], SecretFileProblem> {
        var info = stat()
        if stat(path, &info) != 0, errno == ENOENT {
            return .failure(SecretFileProblem("\(path) does not exist: write 32 hex digits into it (e.g. from `openssl rand -hex 16`), "
                                              + "then chown root:blesensor and chmod 0640 it"))
        }
        let text: String
        switch YAMLDocument.contents(path: path) {
        case let .success(contents): text = contents
        case let .failure(problem): return .failure(SecretFileProblem(problem.message))
        }
        let digits = Array((text.hasSuffix("\n") ? String(text.dropLast()) : text).utf8)
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        let nibbles = digits.compactMap(nibble)
        guard digits.count == 32, nibbles.count == 32 else {
            return .failure(SecretFileProblem("\(path) must hold exactly 32 hex digits (a 16-octet BTHome bindkey like "
                                              + "231d39c1d7cc1ab1aee224cd096db932) and nothing else"))
        }
        return .success(stride(from: 0, to: 32, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] })
    }
}

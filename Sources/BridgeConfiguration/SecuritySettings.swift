import BLECore

/// The `security:` section: who may pair, how, and which characteristics need an encrypted link.
/// Without the section, pairing is always accepted (Just Works, bonds kept) and every profile
/// characteristic stays open, as the SIG profiles define them.
public struct SecuritySettings: Sendable, Equatable {
    public enum Pairing: String, Sendable, Equatable, CaseIterable {
        /// Any central may pair at any time.
        case always
        /// Only while `blesensor pair --window SECONDS` keeps a window open.
        case window
        /// Pairing is refused; existing bonds still re-encrypt.
        case never
    }

    public enum IOCapabilitySetting: String, Sendable, Equatable, CaseIterable {
        case noInputNoOutput = "no-input-no-output"
        case displayOnly = "display-only"
        case displayYesNo = "display-yes-no"
        case keyboardOnly = "keyboard-only"
        case keyboardDisplay = "keyboard-display"
    }

    public enum Passkey: Sendable, Equatable {
        /// A fresh passkey per pairing, written to the log and shown by `blesensor status` and `pair`.
        case random
        /// A fixed 6-digit passkey (e.g. printed on the board's label): authenticated pairing for a headless board.
        case fixed(UInt32)
    }

    public enum WhenFull: String, Sendable, Equatable, CaseIterable {
        case refuseNew = "refuse-new"
        case replaceLeastRecentlyUsed = "replace-least-recently-used"
    }

    /// Characteristics the bridge can serve (and so protect).
    public static let protectableCharacteristics: [BluetoothUUID] = [
        0x2A37, 0x2A38, 0x2A39, 0x2A1C, 0x2A1D, 0x2A1E, 0x2A21, 0x2A6E, 0x2A6F, 0x2A6D, 0x2A19,
        0x2A29, 0x2A24, 0x2A26, 0x2A28, 0x2A25, 0x2A50,
    ].map { BluetoothUUID(UInt16($0)) }

    public static let keySizeRange = 7...16
    public static let maxBondsRange = 1...100
    public static let storeAndForwardRange = 0...10_000

    public var pairing = Pairing.always
    /// With `pairing: window`: a window that opens by itself when the daemon starts (a board just
    /// powered up is ready to pair, as consumer devices are); zero: none.
    public var windowAtStart: Duration = .zero
    /// With `pairing: always`, a central without a bond may start pairing once this often (bonds
    /// for every passer-by, a guesser's rotating addresses, come slowly); zero: no limit.
    public var newCentralsEvery: Duration = .seconds(30)
    public var ioCapability = IOCapabilitySetting.noInputNoOutput
    public var passkey = Passkey.random
    /// An executable that asks a person whether a numeric comparison matches (a button, a display):
    /// run with the six digits and the central's address, exit status 0 means a person confirmed.
    /// Without one, comparisons are accepted while pairing is allowed and give unauthenticated keys.
    public var confirmCommand: String? = nil
    /// A group whose members may, besides root, remove bonds, open pairing windows and see the
    /// passkey through the control socket; everyone who can reach the socket may read status.
    public var adminGroup: String? = nil
    /// Where a fixed passkey was read from (`passkey-file`), so checks can see who may read it.
    public var passkeyFile: String? = nil
    /// Unset in the file: on whenever the IO capability can show or type a passkey (a legacy
    /// passkey pairing's key falls to anyone who recorded it), else off.
    public var secureConnectionsOnly = false
    public var minimumKeySize = 16
    public var maxBonds = 8
    /// Refusing keeps a stranger from evicting the owner's bond with fresh identities.
    public var whenFull = WhenFull.refuseNew
    public var allowWeakerRepairing = false
    public var securityRequest = false
    public var requireEncryption: [BluetoothUUID] = []
    public var requireAuthentication: [BluetoothUUID] = []
    /// Temperature Measurements kept per bonded, disconnected central; 0 turns store-and-forward off.
    public var storeAndForward = 100

    public init() {}
}

extension ConfigurationLoader {
    static let windowAtStartRange = Duration.zero ... Duration.seconds(3600)
    static let newCentralsEveryRange = Duration.zero ... Duration.seconds(3600)
    static let securityKeys = ["pairing", "window-at-start", "new-centrals-every", "io-capability", "passkey", "passkey-file", "confirm-command", "admin-group", "secure-connections-only", "minimum-key-size", "max-bonds",
                               "when-full", "weaker-repairing", "security-request", "require-encryption",
                               "require-authentication", "store-and-forward"]

    static func securitySettings(_ value: YAMLValue?, problems: inout ProblemList) -> SecuritySettings? {
        var settings = SecuritySettings()
        guard let value, !value.isNull else { return settings }
        guard let map = value.map(path: "security", known: securityKeys, problems: &problems) else { return nil }
        let before = problems.problems.count
        func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) -> T? where T.RawValue == String {
            map[key]?.choice(path: map.path(key), among: T.allCases.map(\.rawValue), problems: &problems).flatMap(T.init(rawValue:))
        }
        if let pairing = choice("pairing", SecuritySettings.Pairing.self) { settings.pairing = pairing }
        let windowValid = durationSetting(map, "window-at-start", in: windowAtStartRange, rangeText: "0s…1h",
                                          into: &settings.windowAtStart, problems: &problems)
        if windowValid, settings.windowAtStart > .zero, settings.pairing != .window, let item = map["window-at-start"] {
            problems.add(map.path("window-at-start"), item, "a pairing window only applies with pairing: window")
        }
        _ = durationSetting(map, "new-centrals-every", in: newCentralsEveryRange, rangeText: "0s…1h",
                            into: &settings.newCentralsEvery, problems: &problems)
        if let io = choice("io-capability", SecuritySettings.IOCapabilitySetting.self) { settings.ioCapability = io }
        if let item = map["passkey"] {
            let path = map.path("passkey")
            if let text = item.text(path: path, expected: "random or a 6-digit passkey like 123456", problems: &problems) {
                if text == "random" {
                    settings.passkey = .random
                } else if text.count == 6, text.allSatisfy(\.isASCII), let number = UInt32(text) {
                    settings.passkey = .fixed(number)
                } else {
                    problems.add(path, item, "'\(abbreviated(text))' is not 'random' or a 6-digit passkey like 123456 (quote one with leading zeros: \"012345\")")
                }
            }
        }
        if let item = map["passkey-file"], !item.isNull,
           let path = item.text(path: map.path("passkey-file"), expected: "the absolute path of a file holding six digits", problems: &problems) {
            if map["passkey"] != nil {
                problems.add(map.path("passkey-file"), item, "give either passkey or passkey-file, not both")
            } else if !path.hasPrefix("/") {
                problems.add(map.path("passkey-file"), item, "'\(abbreviated(path))' is not an absolute path; write e.g. /etc/blesensor/passkey")
            } else {
                switch SecretFile.passkey(at: path) {
                case let .success(value):
                    settings.passkey = .fixed(value)
                    settings.passkeyFile = path
                case let .failure(problem):
                    problems.add(map.path("passkey-file"), item, problem.message)
                }
            }
        }
        if let item = map["confirm-command"], !item.isNull,
           let text = item.text(path: map.path("confirm-command"), expected: "the absolute path of an executable", problems: &problems) {
            if text.hasPrefix("/") {
                settings.confirmCommand = text
            } else {
                problems.add(map.path("confirm-command"), item, "'\(abbreviated(text))' is not an absolute path; write the full path of the executable, e.g. /usr/local/bin/confirm-pairing")
            }
        }
        if let item = map["admin-group"], !item.isNull,
           let text = item.text(path: map.path("admin-group"), expected: "a group name like blesensor-admin", problems: &problems) {
            // The POSIX portable user-name characters; a name from the file, never a number.
            let valid = !text.isEmpty && text.count <= 32 && !text.hasPrefix("-")
                && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) } && !text.allSatisfy(\.isNumber)
            if valid { settings.adminGroup = text } else {
                problems.add(map.path("admin-group"), item, "'\(abbreviated(text))' is not a group name (letters, digits, '.', '_', '-'; not a number)")
            }
        }
        settings.secureConnectionsOnly = [.displayOnly, .keyboardOnly, .keyboardDisplay].contains(settings.ioCapability)
        if let item = map["secure-connections-only"], let flag = item.boolean(path: map.path("secure-connections-only"), problems: &problems) {
            settings.secureConnectionsOnly = flag
        }
        if let item = map["minimum-key-size"], let size = item.integer(path: map.path("minimum-key-size"), in: SecuritySettings.keySizeRange,
                                                                        expected: "a key size in octets, 7…16", problems: &problems) {
            settings.minimumKeySize = size
        }
        if let item = map["max-bonds"], let count = item.integer(path: map.path("max-bonds"), in: SecuritySettings.maxBondsRange,
                                                                  expected: "a number of bonds 1…100", problems: &problems) {
            settings.maxBonds = count
        }
        if let whenFull = choice("when-full", SecuritySettings.WhenFull.self) { settings.whenFull = whenFull }
        if let item = map["weaker-repairing"], let text = item.choice(path: map.path("weaker-repairing"), among: ["allow", "refuse"], problems: &problems) {
            settings.allowWeakerRepairing = text == "allow"
        }
        if let item = map["security-request"], let flag = item.boolean(path: map.path("security-request"), problems: &problems) {
            settings.securityRequest = flag
        }
        if let item = map["require-encryption"] {
            settings.requireEncryption = characteristicList(item, path: map.path("require-encryption"), problems: &problems) ?? []
        }
        if let item = map["require-authentication"] {
            settings.requireAuthentication = characteristicList(item, path: map.path("require-authentication"), problems: &problems) ?? []
        }
        if let item = map["store-and-forward"], let count = item.integer(path: map.path("store-and-forward"), in: SecuritySettings.storeAndForwardRange,
                                                                          expected: "a number of measurements 0…10000", problems: &problems) {
            settings.storeAndForward = count
        }
        let needsPasskey = [.displayOnly, .keyboardDisplay].contains(settings.ioCapability)
        if case .fixed = settings.passkey, !needsPasskey, let key = ["passkey", "passkey-file"].first(where: { map[$0] != nil }), let item = map[key] {
            problems.add(map.path(key), item, "a passkey is only shown with io-capability display-only or keyboard-display; set one of those or remove the \(key)")
        }
        if let item = map["io-capability"] {
            let path = map.path("io-capability")
            // Nobody sits at a headless board: what needs its user cannot give MITM protection.
            if settings.ioCapability == .keyboardOnly {
                problems.add(path, item, "nobody types a passkey on a headless board; use display-only (the central types our passkey) or no-input-no-output")
            } else if [.displayYesNo, .keyboardDisplay].contains(settings.ioCapability), settings.confirmCommand == nil,
                      !settings.requireAuthentication.isEmpty {
                problems.add(path, item, "with no one to compare the numbers, a numeric comparison gives an unauthenticated key and cannot satisfy require-authentication; "
                             + "use display-only (the central types our passkey) or set confirm-command to a program that asks a person")
            }
        }
        if settings.ioCapability == .noInputNoOutput, !settings.requireAuthentication.isEmpty, let item = map["require-authentication"] {
            problems.add(map.path("require-authentication"), item, "io-capability no-input-no-output pairs with Just Works only, whose keys are never authenticated, "
                         + "so these characteristics could never be read; set io-capability: display-only (the central types our passkey) or move them to require-encryption")
        }
        if settings.confirmCommand != nil, ![.displayYesNo, .keyboardDisplay].contains(settings.ioCapability), let item = map["confirm-command"] {
            problems.add(map.path("confirm-command"), item, "numeric comparison needs io-capability display-yes-no or keyboard-display; set one of those or remove confirm-command")
        }
        if settings.pairing == .never && settings.ioCapability != .noInputNoOutput, let item = map["io-capability"] {
            problems.add(map.path("io-capability"), item, "pairing is never allowed, so the IO capability is never used; remove it or allow pairing")
        }
        return problems.problems.count == before ? settings : nil
    }

    private static func characteristicList(_ value: YAMLValue, path: String, problems: inout ProblemList) -> [BluetoothUUID]? {
        guard let items = value.list(path: path, of: "characteristic UUIDs like 2A37", problems: &problems) else { return nil }
        var result: [BluetoothUUID] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let text = item.text(path: itemPath, expected: "a characteristic UUID like 2A37", problems: &problems) else { continue }
            guard let uuid = BluetoothUUID(text) else {
                problems.add(itemPath, item, "'\(abbreviated(text))' is not a UUID: write 2A37 or 0x2A37")
                continue
            }
            guard SecuritySettings.protectableCharacteristics.contains(uuid) else {
                let known = SecuritySettings.protectableCharacteristics.map(\.description).joined(separator: ", ")
                problems.add(itemPath, item, "\(text) is not a characteristic blesensord serves (\(known))")
                continue
            }
            if !result.contains(uuid) { result.append(uuid) }
        }
        return result
    }
}

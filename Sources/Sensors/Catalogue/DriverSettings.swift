/// A driver's own settings value, read from its options by its descriptor and kept in the
/// sensor's `DriverOptions` under its type, so a new driver's settings need no field there.
public protocol DriverSettings: Sendable, Equatable {}

/// The per-driver settings values of one sensor, by type.
public struct DriverSettingsTable: Sendable, Equatable {
    private var values: [ObjectIdentifier: any DriverSettings] = [:]

    public init() {}

    public subscript<Settings: DriverSettings>(_ type: Settings.Type) -> Settings? {
        get { values[ObjectIdentifier(type)] as? Settings }
        set { values[ObjectIdentifier(type)] = newValue }
    }

    public static func == (lhs: DriverSettingsTable, rhs: DriverSettingsTable) -> Bool {
        lhs.values.count == rhs.values.count && lhs.values.allSatisfy { key, value in
            rhs.values[key].map { value.isEqual(to: $0) } ?? false
        }
    }
}

extension DriverSettings {
    func isEqual(to other: any DriverSettings) -> Bool { (other as? Self) == self }
}

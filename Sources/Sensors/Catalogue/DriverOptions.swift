/// A driver's own settings value, read from a sensor's `options:` by its descriptor.
public protocol DriverSettings: Sendable, Equatable {}

/// A sensor's driver settings: its driver's settings value, kept by type, so each driver defines
/// its own (`TMP102Driver.Settings`, `HDC1080.Settings`) and none needs a field here.
public struct DriverOptions: Sendable, Equatable {
    private var values: [ObjectIdentifier: any DriverSettings] = [:]

    public init() {}

    public init<Settings: DriverSettings>(_ settings: Settings) {
        self[Settings.self] = settings
    }

    public subscript<Settings: DriverSettings>(_ type: Settings.Type) -> Settings? {
        get { values[ObjectIdentifier(type)] as? Settings }
        set { values[ObjectIdentifier(type)] = newValue }
    }

    /// The value of `type`, or its defaults when the options set none.
    public func settings<Settings: DriverSettings & Defaultable>(_ type: Settings.Type) -> Settings { self[type] ?? Settings() }

    /// Changes the value of `type` (made from its defaults when there is none yet); a value left
    /// at its defaults is not kept, so options that set nothing equal no options.
    public mutating func update<Settings: DriverSettings & Defaultable>(_ type: Settings.Type, _ change: (inout Settings) -> Void) {
        var value = settings(type)
        change(&value)
        self[type] = value == Settings() ? nil : value
    }

    public static func == (lhs: DriverOptions, rhs: DriverOptions) -> Bool {
        lhs.values.count == rhs.values.count && lhs.values.allSatisfy { key, value in
            rhs.values[key].map { value.isEqual(to: $0) } ?? false
        }
    }
}

/// Settings whose every field has a default: what the options leave out.
public protocol Defaultable {
    init()
}

extension DriverSettings {
    func isEqual(to other: any DriverSettings) -> Bool { (other as? Self) == self }
}

/// A driver the daemon and the CLI know, by the name used in configuration files and on the command
/// line: a handle on its descriptor in `SensorDriverCatalogue`. Equal when the names are.
public struct SensorDriver: Sendable, Hashable, CustomStringConvertible {
    public let descriptor: any SensorDriverDescriptor

    public init(_ descriptor: any SensorDriverDescriptor) { self.descriptor = descriptor }

    /// The catalogued driver of that name.
    public init?(rawValue: String) {
        guard let descriptor = SensorDriverCatalogue.descriptor(named: rawValue) else { return nil }
        self.descriptor = descriptor
    }

    public static var allCases: [SensorDriver] { SensorDriverCatalogue.all.map(SensorDriver.init) }

    public var rawValue: String { descriptor.name }
    public var description: String { descriptor.name }

    /// The 7-bit I2C address the chip answers on by default; nil for non-I2C drivers.
    public var defaultAddress: UInt8? {
        if case let .i2c(address) = descriptor.connection { return address }
        return nil
    }

    /// Drivers on an I2C bus (the others are 1-Wire, GPIO, thermal sysfs and the kernel's own).
    public var usesI2C: Bool { defaultAddress != nil }

    /// What reaches the chip on an I2C bus; nil for the other connections.
    public var i2c: (any I2CDriverDescriptor)? { descriptor as? any I2CDriverDescriptor }

    /// The quantities a reading of this driver carries.
    public var quantities: [Quantity] { descriptor.quantities }

    public static func == (lhs: SensorDriver, rhs: SensorDriver) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

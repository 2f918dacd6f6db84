/// What the `simulated` board's chips report when the configuration sets no value.
enum SimulationDefaults {
    static let celsius = 21.5
    static let relativeHumidity = 45.0
    static let pascals = 101_325.0
    /// The body-temperature chips (tmp117, max30205, mlx90614).
    static let bodyCelsius = 36.8
    static let batteryPercent = 87.0

    /// A 16-bit register given as raw bytes in the simulation settings.
    static func word(at start: UInt8, in simulation: SimulationSettings) -> UInt16? {
        simulation.registers.first { $0.start == start && $0.bytes.count == 2 }
            .map { UInt16($0.bytes[0]) << 8 | UInt16($0.bytes[1]) }
    }
}

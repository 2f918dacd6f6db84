import Foundation

/// Maxim MAX17048 battery fuel gauge.
public struct MAX17048Driver: I2CDriverDescriptor {
    public let name = "max17048"
    public let connection = SensorConnection.i2c(defaultAddress: MAX17048.defaultAddress)
    public let quantities: [Quantity] = [.batteryLevel]
    public init() {}

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = MAX17048(bus: context.bus, address: context.address)
        return DriverSource(offsets: context.offsets, read: { () throws(SensorError) in
            let reading = try chip.read()
            return Measurement(batteryPercent: reading.stateOfChargePercent,
                               notice: reading.resetDetected ? MAX17048.resetNotice : nil)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMAX17048(cellVolts: 3.9, percent: simulation.batteryPercent ?? SimulationDefaults.batteryPercent)
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMAX17048(cellVolts: 3.92, percent: 81.5)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let reading = try MAX17048(bus: context.bus, address: context.address).read()
        // As the daemon does: the offset moves the state of charge, which Battery Level clamps to 0…100.
        let percent = min(100, max(0, reading.stateOfChargePercent + request.offset(.batteryLevel)))
        return String(format: "max17048: %.3f V, %.1f %%", reading.cellVolts, percent)
            + (reading.resetDetected ? " (\(MAX17048.resetNotice); reset indicator cleared)" : "")
    }
}

extension SensorDriver {
    public static let max17048 = SensorDriver(MAX17048Driver())
}

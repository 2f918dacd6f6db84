import BLECore
import GATT
import Testing
import VirtualController
@testable import Peripheral

/// The database builder's own error reaches whoever calls `add`, `remove` or `publish`.
@Suite struct DatabaseErrorTests {
    @Test func aDeviceNameTooLongIsReportedByEveryDatabaseCall() async throws {
        let radio = VirtualRadio(label: "database-errors")
        let controller = radio.makeController(configuration: .init(address: BluetoothAddress("00:1B:DC:00:00:0D")!))
        let name = String(repeating: "n", count: BuiltInServices.maximumDeviceNameLength + 1)
        let manager = PeripheralManager(transport: controller, configuration: .init(deviceName: name))
        let expected = PeripheralError.database(.deviceNameTooLong(name.utf8.count))
        await #expect(throws: expected) {
            try await manager.add(GATTService(uuid: BluetoothUUID(0x180F), characteristics: []))
        }
        await #expect(throws: expected) { try await manager.remove(serviceUUID: BluetoothUUID(0x180F)) }
        await #expect(throws: expected) { try await manager.publish() }
    }
}

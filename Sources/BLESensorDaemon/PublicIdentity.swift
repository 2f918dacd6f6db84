import BLECore
import HCI
import Peripheral

/// With `address: public` the controller's own address is the board's identity. Many controllers
/// report a default shared by every unit (a Pi whose firmware was given no address, CSR clone
/// dongles): that is worth a warning, since phones then mix such boards up.
enum PublicIdentity {
    /// For `blesensor status` and the log: the address, marked when it is a shared default.
    struct Report: Sendable, Equatable {
        var status: String
        /// Set when the address is a known shared default.
        var warning: String?
    }

    /// Reads the address the controller reported at start (nil before it started).
    static func report(for manager: PeripheralManager) async -> Report {
        report(for: await manager.host.controllerInfo?.publicAddress)
    }

    static func report(for address: BluetoothAddress?) -> Report {
        guard let address else { return Report(status: "public address (not read yet)", warning: nil) }
        guard let shared = SharedDefaultAddress.lookup(address) else { return Report(status: "\(address) (public)", warning: nil) }
        return Report(
            status: "\(address) (public; a default shared by many controllers: set `address: random`)",
            warning: "the controller's public address \(address) is \(shared.origin), so other boards and dongles use it too: phones may mix them up and offer a bond made with one to another. Set `address: random` (the default) in the configuration to use this board's own random static address, kept in the state directory")
    }
}

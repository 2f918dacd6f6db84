import BLECore
import BridgeConfiguration
import HCI
import HCITransports
import Logging
import VirtualController

/// Turns `--transport` into a transport, choosing for `auto`: the first adapter the kernel has,
/// otherwise demo mode on the in-process virtual controller.
public struct TransportResolver: Sendable {
    public struct Resolved: Sendable {
        public var transport: any HCITransport
        public var specification: TransportSpecification
        /// Set in demo mode: the radio the daemon's controller is on, for the demo central.
        public var radio: VirtualRadio?
    }

    public var adapterExists: @Sendable (Int) -> Bool = { index in
        ProcessEnvironment.fileExists("/sys/class/bluetooth/hci\(index)")
    }

    public init() {}

    public func resolve(_ text: String, logger: Logger) throws(DaemonError) -> Resolved {
        let specification: TransportSpecification
        if text == "auto" {
            if adapterExists(0) {
                specification = .hciUserChannel(index: 0)
                logger.info("--transport auto: using Bluetooth adapter hci0")
            } else {
                specification = .virtual
                logger.notice("--transport auto: no Bluetooth adapter found, running in demo mode on a virtual controller")
            }
        } else {
            do { specification = try TransportSpecification(parsing: text) } catch { throw .transport(error) }
        }
        if specification == .virtual {
            let radio = VirtualRadio(label: "demo")
            let controller = radio.makeController(configuration: .init(address: BluetoothAddress("00:1B:DC:0B:5E:01")!))
            return Resolved(transport: controller, specification: specification, radio: radio)
        }
        do {
            return Resolved(transport: try specification.makeTransport(logger: logger), specification: specification, radio: nil)
        } catch {
            throw .transport(error)
        }
    }
}

import HCI
import Logging

extension TransportSpecification {
    /// Builds the transport for tcp, hci and uart. The virtual controller lives in its own module,
    /// which this one must not depend on, so the daemon constructs it itself.
    public func makeTransport(logger: Logger) throws(HCITransportError) -> any HCITransport {
        switch self {
        case let .tcp(host, port):
            return TCPTransport(host: host, port: port, logger: logger)
        case let .hciUserChannel(index):
            return HCIUserChannelTransport(index: index, logger: logger)
        case let .uart(path, baudRate, flowControl):
            return UARTTransport(path: path, baudRate: baudRate, flowControl: flowControl, logger: logger)
        case .virtual:
            throw .invalidSpecification(description, reason: "virtual is provided by the VirtualController module")
        }
    }
}

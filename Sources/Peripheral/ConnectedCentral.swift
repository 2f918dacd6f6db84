import BLECore
import HCI

/// A remote central connected to this peripheral, as the application sees it (CoreBluetooth's
/// `CBCentral`). Not the central role, which is the `Central` module.
public struct ConnectedCentral: Hashable, Sendable, CustomStringConvertible {
    /// The link to the central: its security, MTU and parameters, and whether it is still open.
    public let link: Link

    public init(link: Link) {
        self.link = link
    }

    /// The connection handle; unique only while the link lasts.
    public var handle: UInt16 { link.handle }
    public var address: DeviceAddress { link.peer }
    /// The longest value a notification or indication to this central carries (ATT MTU − 3), as
    /// CoreBluetooth's `maximumUpdateValueLength`.
    public var maximumUpdateValueLength: Int { link.mtu - 3 }

    public static func == (lhs: ConnectedCentral, rhs: ConnectedCentral) -> Bool { lhs.link.id == rhs.link.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(link.id) }

    public var description: String { address.address.description }
}

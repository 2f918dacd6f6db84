import BLECore
import HCI

/// A connected central, as the application sees it.
public struct Central: Hashable, Sendable, CustomStringConvertible {
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

    public static func == (lhs: Central, rhs: Central) -> Bool { lhs.link.id == rhs.link.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(link.id) }

    public var description: String { address.address.description }
}

import BLECore

/// A connected central, as the application sees it.
public struct Central: Hashable, Sendable, CustomStringConvertible {
    /// The connection handle; unique while the link lasts.
    public let handle: UInt16
    public let address: DeviceAddress

    public init(handle: UInt16, address: DeviceAddress) {
        self.handle = handle
        self.address = address
    }

    public var description: String { address.address.description }
}

/// An attribute handle with (part of) its value: Read By Type entries and Multiple Handle Value
/// Notification tuples.
public struct ATTHandleValue: Hashable, Sendable {
    public var handle: UInt16
    public var value: [UInt8]
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

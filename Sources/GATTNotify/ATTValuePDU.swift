/// Builds the ATT server-initiated value PDUs (Core spec Vol 3 Part F 3.4.7) inside an L2CAP basic
/// frame on the ATT fixed channel (Vol 3 Part A 3.1), so the engine needs no ATT module.
enum ATTValuePDU {
    static let notificationOpcode: UInt8 = 0x1B
    static let indicationOpcode: UInt8 = 0x1D
    static let attChannel: UInt16 = 0x0004
    /// L2CAP basic header (length, channel) plus ATT opcode and attribute handle.
    static let overhead = 7

    /// `[len LE16, CID 0x0004 LE16, opcode, handle LE16, value[0..<length]]`, one heap allocation.
    /// `length` must be ≤ `value.count` (the engine passes the MTU-truncated length).
    static func frame(opcode: UInt8, handle: UInt16, value: [UInt8], length: Int) -> [UInt8] {
        let count = min(length, value.count)
        return [UInt8](unsafeUninitializedCapacity: overhead + count) { buffer, initialized in
            let payloadLength = 3 + count
            buffer[0] = UInt8(truncatingIfNeeded: payloadLength)
            buffer[1] = UInt8(truncatingIfNeeded: payloadLength >> 8)
            buffer[2] = UInt8(truncatingIfNeeded: attChannel)
            buffer[3] = UInt8(truncatingIfNeeded: attChannel >> 8)
            buffer[4] = opcode
            buffer[5] = UInt8(truncatingIfNeeded: handle)
            buffer[6] = UInt8(truncatingIfNeeded: handle >> 8)
            value.withUnsafeBufferPointer { source in
                guard count > 0, let from = source.baseAddress, let to = buffer.baseAddress else { return }
                (to + overhead).initialize(from: from, count: count)
            }
            initialized = overhead + count
        }
    }
}

/// Builds the ATT server-initiated value PDUs (Core spec Vol 3 Part F 3.4.7) inside an L2CAP basic
/// frame on the ATT fixed channel (Vol 3 Part A 3.1), so the engine needs no ATT module.
enum ATTValuePDU {
    static let notificationOpcode: UInt8 = 0x1B
    static let indicationOpcode: UInt8 = 0x1D
    static let multipleNotificationOpcode: UInt8 = 0x23
    static let attChannel: UInt16 = 0x0004
    /// L2CAP basic header (length, channel) plus ATT opcode and attribute handle.
    static let overhead = 7

    /// `[len LE16, CID 0x0004 LE16, opcode, handle LE16, value[0..<length]]`, one heap allocation.
    /// `length` must be ≤ `value.count` (the engine passes the MTU-truncated length).
    static func frame(opcode: UInt8, handle: UInt16, value: [UInt8], length: Int, headroom: Int = 0) -> [UInt8] {
        let count = min(length, value.count)
        let front = max(0, headroom)
        return [UInt8](unsafeUninitializedCapacity: front + overhead + count) { buffer, initialized in
            for index in 0..<front { buffer[index] = 0 }
            let payloadLength = 3 + count
            buffer[front] = UInt8(truncatingIfNeeded: payloadLength)
            buffer[front + 1] = UInt8(truncatingIfNeeded: payloadLength >> 8)
            buffer[front + 2] = UInt8(truncatingIfNeeded: attChannel)
            buffer[front + 3] = UInt8(truncatingIfNeeded: attChannel >> 8)
            buffer[front + 4] = opcode
            buffer[front + 5] = UInt8(truncatingIfNeeded: handle)
            buffer[front + 6] = UInt8(truncatingIfNeeded: handle >> 8)
            value.withUnsafeBufferPointer { source in
                guard count > 0, let from = source.baseAddress, let to = buffer.baseAddress else { return }
                (to + front + overhead).initialize(from: from, count: count)
            }
            initialized = front + overhead + count
        }
    }

    /// Bytes one value takes in a Multiple Handle Value Notification: handle LE16, length LE16, value.
    static let tupleOverhead = 4

    /// `[len LE16, CID 0x0004 LE16, 0x23, (handle LE16, length LE16, value[0..<length]) × count]`
    /// (Vol 3 Part F 3.4.7.4), one heap allocation. `tuplesLength` is the sum of `4 + length` over the
    /// `count` values `value(0..<count)` returns; the caller has checked it fits in MTU − 1.
    static func multipleNotificationFrame(count: Int, tuplesLength: Int, value: (Int) -> QueuedValue) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 5 + tuplesLength) { buffer, initialized in
            buffer[2] = UInt8(truncatingIfNeeded: attChannel)
            buffer[3] = UInt8(truncatingIfNeeded: attChannel >> 8)
            buffer[4] = multipleNotificationOpcode
            var offset = 5
            for index in 0..<count {
                let entry = value(index)
                let length = min(entry.length, entry.value.count)
                // Never write past the capacity, even if the caller's sum were wrong.
                guard offset + tupleOverhead + length <= buffer.count else { break }
                buffer[offset] = UInt8(truncatingIfNeeded: entry.characteristic)
                buffer[offset + 1] = UInt8(truncatingIfNeeded: entry.characteristic >> 8)
                buffer[offset + 2] = UInt8(truncatingIfNeeded: length)
                buffer[offset + 3] = UInt8(truncatingIfNeeded: length >> 8)
                offset += tupleOverhead
                entry.value.withUnsafeBufferPointer { source in
                    guard length > 0, let from = source.baseAddress, let to = buffer.baseAddress else { return }
                    (to + offset).initialize(from: from, count: length)
                }
                offset += length
            }
            // The L2CAP length covers what was written (the ATT PDU after the 4-octet header).
            buffer[0] = UInt8(truncatingIfNeeded: offset - 4)
            buffer[1] = UInt8(truncatingIfNeeded: (offset - 4) >> 8)
            initialized = offset
        }
    }
}

/// The server-initiated value PDUs (Core spec v5.4 Vol 3 Part F 3.4.7) framed for the wire: an L2CAP
/// basic header (Vol 3 Part A 3.1) on the ATT fixed channel, then the ATT PDU, built in one heap
/// allocation. The notification engine sends these frames, and `ATTPDU`'s notification builders take
/// their MTU rules from here, so the rules the tests check are the ones that ship.
///
/// The builders are `@inlinable` because the engine calls them once per notification from another
/// module; inlined, that path costs what it did when the engine had its own framer.
public enum ATTValueFrame {
    /// The ATT fixed channel on an LE-U logical link (Vol 3 Part A 2.1); ATT sits below L2CAP's module,
    /// so it names the channel itself.
    public static let attChannel: UInt16 = 0x0004
    /// L2CAP basic header: PDU length, then channel ID, both LE16.
    public static let l2capHeaderLength = 4
    /// Opcode and attribute handle, in front of a notification's or indication's value.
    public static let handleValueHeaderLength = 3
    /// Attribute handle and Value Length (both LE16), in front of each value of a Multiple Handle Value
    /// Notification.
    public static let tupleHeaderLength = 4

    /// Value octets a Handle Value Notification or Indication carries: ATT_MTU − 3 (3.4.7.1, 3.4.7.2).
    /// Callers bound `mtu` themselves (the builders clamp it, the engine validates it).
    @inlinable
    public static func maximumValueLength(mtu: Int) -> Int {
        mtu - handleValueHeaderLength
    }

    /// `headroom` zero octets, then `[length LE16, 0x0004 LE16, opcode, handle LE16, value[0..<length]]`,
    /// in one heap allocation. The headroom lets a transport put its own header in front without a copy.
    /// `length` is the already MTU-truncated length, at most `value.count` (larger is clamped to it).
    @inlinable
    public static func handleValue(_ opcode: ATTOpcode, handle: UInt16, value: [UInt8], length: Int,
                                   headroom: Int = 0) -> [UInt8] {
        let count = min(length, value.count)
        let front = max(0, headroom)
        let header = l2capHeaderLength + handleValueHeaderLength
        return [UInt8](unsafeUninitializedCapacity: front + header + count) { buffer, initialized in
            for index in 0..<front { buffer[index] = 0 }
            let payloadLength = handleValueHeaderLength + count
            buffer[front] = UInt8(truncatingIfNeeded: payloadLength)
            buffer[front + 1] = UInt8(truncatingIfNeeded: payloadLength >> 8)
            buffer[front + 2] = UInt8(truncatingIfNeeded: attChannel)
            buffer[front + 3] = UInt8(truncatingIfNeeded: attChannel >> 8)
            buffer[front + 4] = opcode.rawValue
            buffer[front + 5] = UInt8(truncatingIfNeeded: handle)
            buffer[front + 6] = UInt8(truncatingIfNeeded: handle >> 8)
            value.withUnsafeBufferPointer { source in
                guard count > 0, let from = source.baseAddress, let to = buffer.baseAddress else { return }
                (to + front + header).initialize(from: from, count: count)
            }
            initialized = front + header + count
        }
    }

    /// `[length LE16, 0x0004 LE16, 0x23, (handle LE16, value length LE16, value) × fit.count]` (3.4.7.4),
    /// in one heap allocation. `tuple(i)` gives the i-th value counted into `fit`, and the octets of it
    /// to send (`length`, at most `value.count`).
    @inlinable
    public static func multipleHandleValueNotification(
        _ fit: ATTMultipleNotificationFit, tuple: (Int) -> (handle: UInt16, value: [UInt8], length: Int)
    ) -> [UInt8] {
        let header = l2capHeaderLength + 1
        return [UInt8](unsafeUninitializedCapacity: header + fit.tuplesLength) { buffer, initialized in
            buffer[2] = UInt8(truncatingIfNeeded: attChannel)
            buffer[3] = UInt8(truncatingIfNeeded: attChannel >> 8)
            buffer[4] = ATTOpcode.multipleHandleValueNotification.rawValue
            var offset = header
            for index in 0..<fit.count {
                let entry = tuple(index)
                let length = min(entry.length, entry.value.count)
                // Never write past the capacity, even if `tuple` disagreed with what was fitted.
                guard offset + tupleHeaderLength + length <= buffer.count else { break }
                buffer[offset] = UInt8(truncatingIfNeeded: entry.handle)
                buffer[offset + 1] = UInt8(truncatingIfNeeded: entry.handle >> 8)
                buffer[offset + 2] = UInt8(truncatingIfNeeded: length)
                buffer[offset + 3] = UInt8(truncatingIfNeeded: length >> 8)
                offset += tupleHeaderLength
                entry.value.withUnsafeBufferPointer { source in
                    guard length > 0, let from = source.baseAddress, let to = buffer.baseAddress else { return }
                    (to + offset).initialize(from: from, count: length)
                }
                offset += length
            }
            // The L2CAP length covers what was written: the ATT PDU after the basic header.
            let payloadLength = offset - l2capHeaderLength
            buffer[0] = UInt8(truncatingIfNeeded: payloadLength)
            buffer[1] = UInt8(truncatingIfNeeded: payloadLength >> 8)
            initialized = offset
        }
    }
}

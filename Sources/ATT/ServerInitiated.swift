import BLECore

// Handle Value Notification/Indication/Confirmation, Multiple Handle Value Notification (3.4.7).
extension ATTPDU {
    static func decodeServerInitiated(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        switch r.opcode {
        case .handleValueNotification:
            let handle = try r.uint16()
            return .handleValueNotification(handle: handle, value: r.remaining())
        case .handleValueIndication:
            let handle = try r.uint16()
            return .handleValueIndication(handle: handle, value: r.remaining())
        case .handleValueConfirmation:
            try r.finish(fixedParameterLength: 0)
            return .handleValueConfirmation
        default:
            // Tuples are never truncated here (3.4.7.4), so every Value Length must be fully present.
            var tuples: [ATTHandleValue] = []
            while r.remainingCount > 0 {
                let handle = try r.uint16()
                let length = try r.uint16()
                tuples.append(ATTHandleValue(handle: handle, value: try r.bytes(Int(length))))
            }
            guard tuples.count >= 2 else {
                throw r.malformed("\(tuples.count) tuple(s); the PDU carries two or more attribute values")
            }
            return .multipleHandleValueNotification(tuples)
        }
    }

    func encodeServerInitiated(into writer: inout ByteWriter) {
        switch self {
        case let .handleValueNotification(handle, value), let .handleValueIndication(handle, value):
            writer.append(handle)
            writer.append(contentsOf: value)
        case let .multipleHandleValueNotification(tuples):
            for tuple in tuples {
                writer.append(tuple.handle)
                writer.append(UInt16(clamping: tuple.value.count))
                writer.append(contentsOf: tuple.value)
            }
        default:
            break
        }
    }

    /// A notification carrying the first `mtu` − 3 octets of the value (3.4.7.1).
    public static func handleValueNotification(handle: UInt16, value: [UInt8], mtu: Int) -> ATTPDU {
        .handleValueNotification(handle: handle, value: valuePrefix(of: value, mtu: mtu))
    }

    /// An indication carrying the first `mtu` − 3 octets of the value (3.4.7.2).
    public static func handleValueIndication(handle: UInt16, value: [UInt8], mtu: Int) -> ATTPDU {
        .handleValueIndication(handle: handle, value: valuePrefix(of: value, mtu: mtu))
    }

    /// The octets of `value` a notification or indication carries: the rule the engine ships, on a
    /// clamped MTU.
    private static func valuePrefix(of value: [UInt8], mtu: Int) -> [UInt8] {
        Array(value.prefix(ATTValueFrame.maximumValueLength(mtu: ATTConstants.clamped(mtu))))
    }

    /// A Multiple Handle Value Notification with the leading whole tuples that fit in `mtu` − 1
    /// (tuples are never truncated, 3.4.7.4), and how many of `values` it carries. Nil when fewer than
    /// two fit: send the first value as a plain notification instead.
    public static func multipleHandleValueNotification(fitting values: [ATTHandleValue], mtu: Int) -> (pdu: ATTPDU, count: Int)? {
        var fit = ATTMultipleNotificationFit(mtu: ATTConstants.clamped(mtu))
        for value in values {
            guard fit.add(valueLength: value.value.count) else { break }
        }
        guard fit.isWorthCombining else { return nil }
        return (.multipleHandleValueNotification(Array(values.prefix(fit.count))), fit.count)
    }
}

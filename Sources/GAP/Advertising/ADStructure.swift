import BLECore

/// Advertising data types (Assigned Numbers, "Common Data Types").
public enum ADType {
    public static let flags: UInt8 = 0x01
    public static let incompleteList16: UInt8 = 0x02
    public static let completeList16: UInt8 = 0x03
    public static let incompleteList32: UInt8 = 0x04
    public static let completeList32: UInt8 = 0x05
    public static let incompleteList128: UInt8 = 0x06
    public static let completeList128: UInt8 = 0x07
    public static let shortenedLocalName: UInt8 = 0x08
    public static let completeLocalName: UInt8 = 0x09
    public static let txPowerLevel: UInt8 = 0x0A
    public static let solicitedList16: UInt8 = 0x14
    public static let solicitedList128: UInt8 = 0x15
    public static let serviceData16: UInt8 = 0x16
    public static let appearance: UInt8 = 0x19
    public static let solicitedList32: UInt8 = 0x1F
    public static let serviceData32: UInt8 = 0x20
    public static let serviceData128: UInt8 = 0x21
    public static let manufacturerSpecificData: UInt8 = 0xFF
}

/// Flags AD values (Core Specification Supplement Part A 1.3).
public enum ADFlags {
    public static let leGeneralDiscoverable: UInt8 = 0x02
    public static let brEdrNotSupported: UInt8 = 0x04
}

/// One length-type-value structure of advertising or scan response data.
public struct ADStructure: Sendable, Equatable, CustomStringConvertible {
    public var type: UInt8
    public var data: [UInt8]

    public init(type: UInt8, data: [UInt8]) {
        self.type = type
        self.data = data
    }

    /// Bytes on air: length, type, data.
    public var encodedLength: Int { 2 + data.count }

    public func encode(into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: 1 + data.count))
        bytes.append(type)
        bytes.append(contentsOf: data)
    }

    public var description: String { "AD 0x\(String(type, radix: 16)): \(data.hexString)" }

    /// Splits advertising data into structures. Total: a length running past the end is an error;
    /// a zero length ends the significant part, as the spec says (padding follows).
    public static func parse(_ bytes: [UInt8]) throws(AdvertisingDataError) -> [ADStructure] {
        let (structures, error) = parsePrefix(bytes)
        if let error { throw error }
        return structures
    }

    /// The well-formed structures before the first malformed one, and the error that stopped the
    /// split (`nil` when all of `bytes` was well formed). Never traps.
    public static func parsePrefix(_ bytes: [UInt8]) -> ([ADStructure], AdvertisingDataError?) {
        var structures: [ADStructure] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            if length == 0 { break }
            guard index + 1 + length <= bytes.count else {
                return (structures, .malformed(offset: index, reason: "structure length \(length) runs past the end of \(bytes.count) bytes"))
            }
            structures.append(ADStructure(type: bytes[index + 1], data: Array(bytes[(index + 2)..<(index + 1 + length)])))
            index += 1 + length
        }
        return (structures, nil)
    }
}

import Testing
import BLECore
import TestSupport
@testable import HCI

func address(_ text: String) throws -> BluetoothAddress { try #require(BluetoothAddress(text)) }

/// Runs a decoder and hands back the typed error it threw, or nil.
func decodingError<T>(_ body: () throws(HCIDecodingError) -> T) -> HCIDecodingError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

func isTruncated(_ error: HCIDecodingError?) -> Bool {
    if case .truncated = error { return true }
    return false
}

func isUnexpectedLength(_ error: HCIDecodingError?, expected: Int, actual: Int) -> Bool {
    if case let .unexpectedLength(_, e, a) = error { return e == expected && a == actual }
    return false
}

func isInvalidValue(_ error: HCIDecodingError?, field: String, value: UInt64) -> Bool {
    if case let .invalidValue(_, f, v) = error { return f == field && v == value }
    return false
}

/// Checks a command's H4 frame byte for byte, then that the frame decodes back to the same command.
func expectCommand<C: HCICommand>(_ command: C, _ expectedHex: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
    let expected = hex(expectedHex)
    let packet = command.packet
    #expect(packet.h4Bytes.hexString == expected.hexString, sourceLocation: sourceLocation)
    #expect(packet.type == .command, sourceLocation: sourceLocation)
    let decoded = try HCICommandPacket(body: packet.body)
    #expect(decoded.opcode == C.opcode, sourceLocation: sourceLocation)
    #expect(try decoded.decode(C.self) == command, sourceLocation: sourceLocation)
    #expect(try C(decoding: command.encoded) == command, sourceLocation: sourceLocation)
}

/// Decodes an H4 event frame and checks that re-encoding the result gives the same bytes.
func decodeEvent(_ frameHex: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> HCIEvent {
    let bytes = hex(frameHex)
    let packet = try #require(HCIPacket(h4Bytes: bytes), sourceLocation: sourceLocation)
    #expect(packet.type == .event, sourceLocation: sourceLocation)
    let event = try HCIEvent(body: packet.body)
    #expect(event.packet.h4Bytes.hexString == bytes.hexString, sourceLocation: sourceLocation)
    return event
}

/// Decodes spec-shaped return parameters, checks they re-encode identically, and that every shorter
/// prefix is rejected as truncated.
func decodeReturn<R: HCIReturnParameters>(_ type: R.Type, _ bytesHex: String,
                                          sourceLocation: SourceLocation = #_sourceLocation) throws -> R {
    let bytes = hex(bytesHex)
    let value = try R(decoding: bytes)
    #expect(value.encoded.hexString == bytes.hexString, sourceLocation: sourceLocation)
    for length in 0..<bytes.count {
        let error = decodingError { () throws(HCIDecodingError) in try R(decoding: Array(bytes.prefix(length))) }
        #expect(isTruncated(error), "prefix of \(length) bytes", sourceLocation: sourceLocation)
    }
    return value
}

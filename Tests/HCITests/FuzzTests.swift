import TestSupport
import Testing
import BLECore
@testable import HCI

/// Seeded random input through every decoder. Whatever the bytes, decoding either throws
/// `HCIDecodingError` or yields a value that re-encodes and decodes to itself; it never traps.
@Suite struct FuzzTests {
    static let iterations = 3000

    /// Event codes and LE subevents with decoders, plus neighbours, so most bodies get past the header.
    static let eventCodes: [UInt8] = [0x05, 0x08, 0x0C, 0x0E, 0x0F, 0x10, 0x13, 0x1A, 0x30, 0x3E, 0x59, 0x00, 0x03, 0xFF]
    static let subevents: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0A, 0x29, 0x0D, 0x00, 0xFF]

    @Test func randomEventBodies() {
        var rng = SplitMix64(seed: 0x4843_4945_5645_4E54)
        var decoded = 0
        for _ in 0..<Self.iterations {
            let body = rng.bytes(count: Int.random(in: 0...48, using: &rng))
            _ = decodingError { () throws(HCIDecodingError) in try HCIEvent(body: body[...]) }
            // Same random parameters behind a header that is consistent, to reach the event decoders.
            var parameters = rng.bytes(count: Int.random(in: 0...64, using: &rng))
            let code = Self.eventCodes.randomElement(using: &rng) ?? 0x3E
            if code == HCIEventCode.leMeta, !parameters.isEmpty {
                parameters[0] = Self.subevents.randomElement(using: &rng) ?? 0x02
            }
            if code == HCIEventCode.leMeta, parameters.count > 1, parameters[0] == LESubeventCode.advertisingReport {
                parameters[1] = UInt8.random(in: 0...3, using: &rng)  // plausible Num_Reports
            }
            let framed = [code, UInt8(parameters.count)] + parameters
            do {
                let event = try HCIEvent(body: framed[...])
                decoded += 1
                #expect(try HCIEvent(body: event.packet.body) == event, "seeded body \(framed.hexString)")
            } catch {
                // Throwing is the total-decoder outcome for garbage; the typed error is all we ask.
                _ = error.description
            }
        }
        // The consistent-header half must exercise real decoding, not just header rejection.
        #expect(decoded > Self.iterations / 4)
    }

    /// The router's Number Of Completed Packets shortcut never disagrees with the full decoder:
    /// where it answers, the decoder yields that one entry; it answers for every exact
    /// one-handle event (anything else, trailing bytes included, takes the decoder's path).
    @Test func completedPacketsShortcutAgreesWithTheDecoder() {
        var rng = SplitMix64(seed: 0x4E43_5000)
        var taken = 0
        for _ in 0..<Self.iterations {
            // Half of them the one-handle length, so the header flips below often make it exact.
            var body = rng.bytes(count: Bool.random(using: &rng) ? 7 : Int.random(in: 0...9, using: &rng))
            if body.count >= 3, Bool.random(using: &rng) { body[0] = HCIEventCode.numberOfCompletedPackets }
            if body.count >= 3, Bool.random(using: &rng) { body[1] = UInt8(body.count - 2) }
            if body.count >= 3, Bool.random(using: &rng) { body[2] = 1 }
            let shortcut = HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: body[...])
            let decoded = try? HCIEvent(body: body[...])
            if let shortcut {
                taken += 1
                #expect(decoded == .numberOfCompletedPackets(.init(entries: [shortcut])), "seeded body \(body.hexString)")
            } else if body.count == 7, case let .numberOfCompletedPackets(event) = decoded, event.entries.count == 1 {
                Issue.record("the exact one-handle form was not taken: \(body.hexString)")
            }
        }
        #expect(taken > Self.iterations / 40)
    }

    @Test func randomACLBodies() {
        var rng = SplitMix64(seed: 0x4143_4C00)
        var decoded = 0
        for _ in 0..<Self.iterations {
            var body = rng.bytes(count: Int.random(in: 0...40, using: &rng))
            if body.count >= 4, Bool.random(using: &rng) {
                body[2] = UInt8(body.count - 4)
                body[3] = 0
            }
            do {
                let packet = try HCIACLPacket(body: body[...])
                decoded += 1
                #expect(packet.packet.body.elementsEqual(body), "seeded body \(body.hexString)")
            } catch {
                _ = error.description
            }
        }
        #expect(decoded > 0)
    }

    @Test func randomCommandBodies() throws {
        var rng = SplitMix64(seed: 0x434D_4400)
        let opcodes = Array(HCIOpcode.names.keys).sorted { $0.rawValue < $1.rawValue }
        for _ in 0..<Self.iterations {
            var body = rng.bytes(count: Int.random(in: 0...40, using: &rng))
            if body.count >= 3, Bool.random(using: &rng) {
                let opcode = opcodes.randomElement(using: &rng) ?? .reset
                body[0] = UInt8(truncatingIfNeeded: opcode.rawValue)
                body[1] = UInt8(truncatingIfNeeded: opcode.rawValue >> 8)
                body[2] = UInt8(body.count - 3)
            }
            _ = decodingError { () throws(HCIDecodingError) in try HCICommandPacket(body: body[...]) }
        }
    }

    @Test func randomParametersThroughEveryCommandDecoder() throws {
        var rng = SplitMix64(seed: 0x5041_5241_4D53)
        for command in try TotalityTests.sampleCommands() {
            try Self.fuzz(command, rng: &rng)
        }
    }

    /// Random parameters of every length up to a few bytes past the real one, for the command and
    /// its return parameters; successes must round-trip.
    static func fuzz<C: HCICommand>(_ sample: C, rng: inout SplitMix64) throws {
        let length = sample.encoded.count
        for _ in 0..<100 {
            let parameters = rng.bytes(count: Int.random(in: 0...(length + 4), using: &rng))
            let packet = HCICommandPacket(opcode: C.opcode, parameters: parameters)
            if let command = try? packet.decode(C.self) {
                #expect(parameters.count == length, "\(C.self) accepted \(parameters.count) bytes")
                #expect(try HCICommandPacket(body: command.packet.body).decode(C.self) == command, "\(C.self) \(parameters.hexString)")
            }
            let returnBytes = rng.bytes(count: Int.random(in: 0...70, using: &rng))
            if let value = try? C.ReturnParameters(decoding: returnBytes) {
                #expect(try C.ReturnParameters(decoding: value.encoded) == value, "\(C.ReturnParameters.self) \(returnBytes.hexString)")
            }
        }
    }
}

import TestSupport
import Testing
import BLECore
@testable import ATT

@Suite struct RobustnessTests {
    @Test func vectorsCoverEveryOpcode() {
        let covered = Set(allVectors.map(\.pdu.opcode))
        #expect(covered == Set(ATTOpcode.allKnown))
    }

    @Test(arguments: allVectors)
    func encodesByteExactAndRoundTrips(vector: Vector) throws {
        #expect(vector.pdu.encode() == vector.bytes)
        let decoded = try ATTPDU.decode(vector.bytes)
        #expect(decoded == vector.pdu)
        #expect(try ATTPDU.decode(vector.pdu.encode()) == vector.pdu)
    }

    /// Each strict prefix either throws an error naming the PDU's opcode, or is itself a complete
    /// shorter PDU (variable-length tails) that re-encodes to exactly that prefix. Never a trap.
    @Test(arguments: allVectors)
    func everyPrefixThrowsOrIsItselfValid(vector: Vector) {
        for length in 0..<vector.bytes.count {
            let prefix = Array(vector.bytes.prefix(length))
            do {
                let pdu = try ATTPDU.decode(prefix)
                #expect(pdu.opcode == vector.pdu.opcode)
                #expect(pdu.encode() == prefix, "prefix \(prefix.hexString) of \(vector)")
            } catch {
                #expect(error.opcode == (length == 0 ? nil : vector.pdu.opcode), "prefix \(prefix.hexString)")
            }
        }
    }

    /// Prefixes that cut a fixed field (opcode + fixed header) must throw for every PDU.
    @Test(arguments: allVectors)
    func prefixesInsideFixedFieldsThrow(vector: Vector) {
        let fixed: Int
        switch vector.pdu {
        case .errorResponse: fixed = 5
        case .exchangeMTURequest, .exchangeMTUResponse, .readRequest: fixed = 3
        case .findInformationRequest, .readBlobRequest: fixed = 5
        case .findInformationResponse: fixed = vector.bytes.count >= 20 ? 20 : 6
        case .findByTypeValueRequest: fixed = 7
        case .findByTypeValueResponse: fixed = 5
        case .readByTypeRequest, .readByGroupTypeRequest: fixed = 7
        case .readByTypeResponse: fixed = 9
        case .readByGroupTypeResponse: fixed = 8
        case .readMultipleRequest, .readMultipleVariableRequest: fixed = 5
        case .readMultipleVariableResponse: fixed = 5
        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication: fixed = 3
        case .signedWriteCommand: fixed = 15
        case .prepareWriteRequest, .prepareWriteResponse: fixed = 5
        case .executeWriteRequest: fixed = 2
        case .multipleHandleValueNotification: fixed = 9
        case .readResponse, .readBlobResponse, .readMultipleResponse, .writeResponse, .executeWriteResponse,
             .handleValueConfirmation, .unknown:
            fixed = 1
        }
        for length in 0..<fixed {
            #expect(throws: ATTDecodingError.self, "\(vector) cut to \(length)") { try ATTPDU.decode(Array(vector.bytes.prefix(length))) }
        }
    }

    @Test func unknownOpcodesAreKept() throws {
        for raw: UInt8 in [0x14, 0x15, 0x1A, 0x1C, 0x1F, 0x22, 0x24, 0x3F, 0x53, 0x7F, 0x92, 0xFF] {
            let bytes: [UInt8] = [raw, 0x01, 0x02]
            let pdu = try ATTPDU.decode(bytes)
            #expect(pdu == .unknown(opcode: ATTOpcode(raw), parameters: [1, 2]))
            #expect(pdu.encode() == bytes)
            #expect(pdu.isRequest == (raw & 0x40 == 0))
        }
        #expect(try ATTPDU.decode([0x24]) == .unknown(opcode: ATTOpcode(0x24), parameters: []))
    }

    @Test func randomInputsNeverTrap() {
        var rng = SplitMix64(seed: 0xA77_5EED)
        var decoded = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...48, using: &rng)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Mostly known opcodes, so the parsers themselves get exercised rather than `.unknown`.
            if !bytes.isEmpty, Int.random(in: 0..<10, using: &rng) < 8 {
                bytes[0] = ATTOpcode.allKnown[Int.random(in: 0..<ATTOpcode.allKnown.count, using: &rng)].rawValue
            }
            do {
                let pdu = try ATTPDU.decode(bytes)
                decoded += 1
                #expect(try ATTPDU.decode(pdu.encode()) == pdu, "\(bytes.hexString)")
            } catch {
                let expected: ATTOpcode? = bytes.first.map { ATTOpcode($0) }
                #expect(error.opcode == expected, "\(bytes.hexString)")
            }
        }
        // Both outcomes must have been exercised for the fuzzing to mean anything.
        #expect(decoded > 1_000)
        #expect(decoded < 20_000)
    }

    @Test func mutatedVectorsNeverTrap() throws {
        var rng = SplitMix64(seed: 517)
        for round in 0..<10_000 {
            var bytes = allVectors[round % allVectors.count].bytes
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where !bytes.isEmpty:
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1 where !bytes.isEmpty:
                    bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng))
                default:
                    bytes.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...bytes.count, using: &rng))
                }
            }
            if let pdu = try? ATTPDU.decode(bytes) {
                #expect(try ATTPDU.decode(pdu.encode()) == pdu, "\(bytes.hexString)")
            }
        }
    }
}

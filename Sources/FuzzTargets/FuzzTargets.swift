import ATT
import BLECore
import Bonding
@_spi(Fuzzing) import BridgeConfiguration
@_spi(Fuzzing) import ControlSocket
import Foundation
import GAP
import HCI
import HCITransports
import MetricsExporter
import SMP

/// Entry points for coverage-guided fuzzing (libFuzzer through `blesensor-fuzz`, see
/// scripts/fuzz.sh) and for replaying the committed corpus in the ordinary tests. Each parser of
/// bytes from the air, the controller or a file must take any input without trapping; where the
/// format allows, a target also checks an invariant and traps (`FuzzInvariant`) when it breaks.
public enum FuzzTargets {
    public static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "smp-pdu": smpPDU,
        "smp-session": SMPSessionFuzzing.run,
        "att-pdu": attPDU,
        "h4-framer": h4Framer,
        "acl-reassembler": aclReassembler,
        "advertising-data": advertisingData,
        "configuration": configuration,
        "sensor-values": SensorValueFuzzing.run,
        "gatt-server": GATTServerFuzzing.run,
        "gatt-client": GATTClientFuzzing.run,
        "control-socket": controlSocket,
        "board-file": boardFile,
        "http-request": httpRequest,
    ]

    /// The metrics endpoint's request head: any bytes get an answer, and a complete head parses
    /// the same with more bytes after it (a pipelined or dribbled request).
    static func httpRequest(_ bytes: [UInt8]) {
        let parsed = HTTPRequestHead.parse(bytes)
        if case .complete = parsed {
            FuzzInvariant.check(HTTPRequestHead.parse(bytes + Array("X".utf8)) == parsed, "trailing bytes changed a complete head")
        }
    }

    /// A decoded SMP command encodes to bytes that decode to the same command.
    static func smpPDU(_ bytes: [UInt8]) {
        guard let command = try? SMPCommand(decoding: bytes) else { return }
        FuzzInvariant.check((try? SMPCommand(decoding: command.encoded)) == command, "SMP \(command) does not survive encode/decode")
    }

    static func attPDU(_ bytes: [UInt8]) {
        guard let pdu = try? ATTPDU.decode(bytes) else { return }
        FuzzInvariant.check((try? ATTPDU.decode(pdu.encode())) == pdu, "ATT \(pdu) does not survive encode/decode")
    }

    /// A byte stream cut into chunks (each chunk's length is its first byte): packets come out
    /// whole, in order, whatever the cut, until the framing is declared lost.
    static func h4Framer(_ bytes: [UInt8]) {
        var framer = H4StreamFramer()
        var chunks = ByteCursor(bytes)
        while let length = chunks.next() {
            let chunk = chunks.take(Int(length))
            do throws(HCITransportError) { try framer.feed(chunk) { _ in } } catch { return }
        }
    }

    /// Fragments with boundary flags from the input: a completed PDU always has the length its
    /// L2CAP header announces.
    static func aclReassembler(_ bytes: [UInt8]) {
        var reassembler = ACLReassembler()
        var input = ByteCursor(bytes)
        while let control = input.next() {
            let boundary = ACLPacketBoundary(rawValue: control & 0b11) ?? .continuing
            let fragment = input.take(Int(control >> 2))
            if case let .complete(pdu) = reassembler.append(fragment, boundary: boundary) {
                FuzzInvariant.check(pdu.count >= 4 && pdu.count == 4 + (Int(pdu[0]) | Int(pdu[1]) << 8), "ACL PDU of \(pdu.count) bytes")
            }
        }
    }

    /// The lenient parse keeps what the strict one accepts.
    static func advertisingData(_ bytes: [UInt8]) {
        let lenient = AdvertisementData(decoding: bytes)
        guard let strict = try? AdvertisementData(parsing: bytes) else { return }
        FuzzInvariant.check(strict == lenient, "strict and lenient advertising parses differ")
    }

    static func configuration(_ bytes: [UInt8]) {
        _ = ConfigurationLoader.load(yaml: String(decoding: bytes, as: UTF8.self), fileName: "fuzz.yaml",
                                     boardsDirectories: [repositoryBoards], environment: [:])
    }

    static func controlSocket(_ bytes: [UInt8]) {
        if let broken = ControlSocketFuzzing.run(bytes) { FuzzInvariant.check(false, broken) }
    }

    static func boardFile(_ bytes: [UInt8]) {
        if let broken = BoardFileFuzzing.run(String(decoding: bytes, as: UTF8.self)) { FuzzInvariant.check(false, broken) }
    }

    /// The repository's board files, which the configuration loader reads for `board:`.
    static let repositoryBoards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards").path
}

/// Reads a fuzz input front to back; past its end everything is empty.
struct ByteCursor {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func next() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + count)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

/// A broken invariant is a crash the fuzzer reports with its input.
enum FuzzInvariant {
    static func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        if !condition() { fatalError("fuzz invariant broken: \(message())") }
    }
}

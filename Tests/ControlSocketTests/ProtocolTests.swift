import FoundationEssentials
import Testing
@testable import ControlSocket

@Suite struct ProtocolTests {
    @Test func knownCommandsParse() {
        #expect(ControlCodec.parseRequest(Array(Lines.status.utf8)) == .success(.status))
        #expect(ControlCodec.parseRequest(Array(Lines.watch.utf8)) == .success(.watchSensors))
        // Extra fields are tolerated: a newer client may add optional ones without a version bump.
        #expect(ControlCodec.parseRequest(Array(#"{"command":"status","version":1,"verbose":true}"#.utf8)) == .success(.status))
    }

    @Test func rejectionsSayWhatToDo() {
        func message(_ text: String) -> String? {
            if case .failure(let rejection) = ControlCodec.parseRequest(Array(text.utf8)) { return rejection.message }
            return nil
        }
        #expect(message(#"{"version":1,"command":"x"}"#) == "unknown command 'x'; known: status, watch-sensors, bonds, remove-bond, open-pairing-window, pairing, watch-pairing")
        #expect(message(#"{"version":2,"command":"status"}"#)
            == "unsupported control protocol version 2; this blesensord speaks version 1: install matching blesensor and blesensord")
        #expect(message(#"{"command":"status"}"#) == #"request has no "version"; this blesensord speaks control protocol version 1"#)
        #expect(message(#"{"version":1}"#) == #"request has no "command"; known: status, watch-sensors, bonds, remove-bond, open-pairing-window, pairing, watch-pairing"#)
        let malformed = #"malformed request: expected one JSON object per line like {"version":1,"command":"status"}"#
        #expect(message("{nope") == malformed)
        #expect(message("[1,2]") == malformed)
        #expect(message(#"{"version":"1","command":"status"}"#) == malformed)
    }

    @Test func anyBytesGiveAnAnswer() {
        // A deterministic pseudo-random walk over byte strings, JSON-ish fragments and invalid UTF-8: no trap.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let alphabet = Array(#"{}[]":,1 versioncommand\"#.utf8) + [0xFF, 0xC3, 0x00, 0x80]
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 58)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            _ = ControlCodec.parseRequest(bytes)
        }
        _ = ControlCodec.parseRequest(Array(repeating: UInt8(ascii: "["), count: 4096))
    }

    @Test func messagesHaveTheDocumentedShape() throws {
        let ack = String(decoding: try ControlCodec.line(ControlReply(ok: true)), as: UTF8.self)
        #expect(ack == Lines.ack + "\n")
        let error = String(decoding: ControlCodec.errorLine("unknown command 'x'; known: status, watch-sensors"), as: UTF8.self)
        #expect(error == #"{"error":"unknown command 'x'; known: status, watch-sensors","ok":false,"version":1}"# + "\n")
        let update = String(decoding: try ControlCodec.line(SensorUpdateMessage(sensor: Fixtures.failed)), as: UTF8.self)
        // Unknown value and age are null, not missing: every documented key is always there.
        #expect(update == #"{"sensor":{"ageSeconds":null,"driver":"sht31","error":"i2c 0x44 on /dev/i2c-1: Remote I/O error","failures":3,"name":"attic","readings":[],"reads":0,"state":"failed","unit":"°C","value":null},"version":1}"# + "\n")
    }

    @Test func nonFiniteValuesStillEncode() throws {
        var sensor = Fixtures.bme280
        sensor.value = .nan
        let line = try ControlCodec.line(SensorUpdateMessage(sensor: sensor))
        let decoded = try ControlCodec.decoder().decode(SensorUpdateMessage.self, from: Data(line.dropLast()))
        #expect(decoded.sensor.value?.isNaN == true)
    }
}

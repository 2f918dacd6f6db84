import FoundationEssentials
import Testing
@testable import ControlSocket

@Suite struct SecurityProtocolTests {
    private func parse(_ text: String) -> Result<ParsedRequest, RequestRejection> {
        ControlCodec.parseRequest(Array(text.utf8))
    }

    private func message(_ text: String) -> String? {
        if case .failure(let rejection) = parse(text) { return rejection.message }
        return nil
    }

    @Test func securityCommandsParse() {
        #expect(parse(#"{"version":1,"command":"bonds"}"#) == .success(.bonds))
        #expect(parse(Lines.removePhone) == .success(.removeBond(BondAddress(address: "4A:5B:6C:7D:8E:9F", kind: .random))))
        #expect(parse(#"{"version":1,"command":"remove-bond","address":"00:1a:7d:da:71:13","addressType":"public"}"#)
            == .success(.removeBond(BondAddress(address: "00:1A:7D:DA:71:13", kind: .public))))
        // A null parameter is the same as none.
        #expect(parse(#"{"version":1,"command":"remove-bond","address":"00:1A:7D:DA:71:13","addressType":null}"#)
            == .success(.removeBond(BondAddress(address: "00:1A:7D:DA:71:13", kind: nil))))
        #expect(parse(#"{"version":1,"command":"open-pairing-window","seconds":60}"#) == .success(.openPairingWindow(seconds: 60)))
        #expect(parse(#"{"version":1,"command":"pairing"}"#) == .success(.pairing))
        // Parameters of other commands are ignored, like any unknown field.
        #expect(parse(#"{"version":1,"command":"status","seconds":"x"}"#) == .success(.status))
    }

    @Test func parameterProblemsAreNamed() {
        let usage = #"remove-bond needs "address": a string like "AA:BB:CC:DD:EE:FF" or "AA:BB:CC:DD:EE:FF (public)""#
        #expect(message(#"{"version":1,"command":"remove-bond"}"#) == usage)
        #expect(message(#"{"version":1,"command":"remove-bond","address":42}"#) == usage)
        #expect(message(#"{"version":1,"command":"remove-bond","address":"AA:BB","addressType":"public"}"#)
            == "remove-bond: 'AA:BB' is not a Bluetooth address: use six hex byte pairs like AA:BB:CC:DD:EE:FF")
        #expect(message(#"{"version":1,"command":"remove-bond","address":"AA:BB:CC:DD:EE:FF","addressType":1}"#)
            == #"remove-bond's "addressType" must be "public" or "random""#)
        let window = #"open-pairing-window needs "seconds": a whole number from 1 to 3600"#
        for seconds in ["", #","seconds":0"#, #","seconds":3601"#, #","seconds":"60""#, #","seconds":1.5"#, #","seconds":-1"#] {
            #expect(message(#"{"version":1,"command":"open-pairing-window""# + seconds + "}") == window)
        }
    }

    @Test func bondAddresses() {
        func parsed(_ text: String, _ type: String? = nil) -> BondAddress? { try? BondAddress.parse(text, type: type).get() }
        #expect(parsed("aa:bb:cc:dd:ee:ff") == BondAddress(address: "AA:BB:CC:DD:EE:FF", kind: nil))
        #expect(parsed(" AA:BB:CC:DD:EE:FF (public) ") == BondAddress(address: "AA:BB:CC:DD:EE:FF", kind: .public))
        #expect(parsed("AA:BB:CC:DD:EE:FF(Random)") == BondAddress(address: "AA:BB:CC:DD:EE:FF", kind: .random))
        #expect(parsed("AA:BB:CC:DD:EE:FF", "random") == BondAddress(address: "AA:BB:CC:DD:EE:FF", kind: .random))
        #expect(parsed("AA:BB:CC:DD:EE:FF (public)", "public")?.description == "AA:BB:CC:DD:EE:FF (public)")

        func failure(_ text: String, _ type: String? = nil) -> String? {
            if case .failure(let failure) = BondAddress.parse(text, type: type) { return failure.message }
            return nil
        }
        #expect(failure("AA:BB:CC:DD:EE:FF (public)", "random")
            == "'AA:BB:CC:DD:EE:FF (public)' says public but the type given is random; give one of them")
        #expect(failure("AA:BB:CC:DD:EE:FF (static)") == "'static' in 'AA:BB:CC:DD:EE:FF (static)' is not an address type: use (public) or (random)")
        #expect(failure("AA:BB:CC:DD:EE:FF", "rpa") == "'rpa' is not an address type: use public or random")
        // UInt8(_:radix:) would take a sign; an address never has one.
        for text in ["", "+A:BB:CC:DD:EE:FF", "AA:BB:CC:DD:EE", "AA:BB:CC:DD:EE:FF:00", "AABBCCDDEEFF", "AA:BB:CC:DD:EE:FG",
                     "AA::CC:DD:EE:FF", "ＡA:BB:CC:DD:EE:FF", "(public)"] {
            #expect(failure(text)?.hasSuffix("use six hex byte pairs like AA:BB:CC:DD:EE:FF") == true, "\(text)")
        }
    }

    @Test func requestsStayCompactAndOldOnesUnchanged() throws {
        #expect(String(decoding: try ControlCodec.line(ControlRequest(.status)), as: UTF8.self) == #"{"command":"status","version":1}"# + "\n")
        let remove = ControlRequest(command: "remove-bond", address: "AA:BB:CC:DD:EE:FF", addressType: "public")
        #expect(String(decoding: try ControlCodec.line(remove), as: UTF8.self)
            == #"{"address":"AA:BB:CC:DD:EE:FF","addressType":"public","command":"remove-bond","version":1}"# + "\n")
    }

    @Test func bondRepliesCarryISODates() throws {
        let line = String(decoding: try ControlCodec.line(ControlReply(ok: true, bonds: [Fixtures.laptop])), as: UTF8.self)
        #expect(line == #"{"bonds":[{"address":"00:1A:7D:DA:71:13","addressType":"public","authenticated":false,"connected":false,"#
            + #""createdAt":"2025-05-01T12:00:00Z","hasIRK":false,"keySize":16,"lastSeen":"2025-05-01T12:00:00Z","#
            + #""secureConnections":false}],"ok":true,"version":1}"# + "\n")
        let decoded = try ControlCodec.decoder().decode(ControlReply.self, from: Data(line.utf8))
        #expect(decoded.bonds == [Fixtures.laptop])
    }

    @Test func statusCarriesSecurityAdditively() throws {
        let line = String(decoding: try ControlCodec.line(ControlReply(ok: true, status: Fixtures.secureSnapshot)), as: UTF8.self)
        #expect(line.contains(#""bonds":["4A:5B:6C:7D:8E:9F (random)","00:1A:7D:DA:71:13 (public)"]"#))
        #expect(line.contains(#""pairing":{"mode":"window","passkey":"012345","passkeyMode":"fixed","windowRemainingSeconds":59.6}"#))
        #expect(line.contains(#""bonded":true"#) && line.contains(#""keySize":16"#) && line.contains(#""securityLevel":"authenticated""#))
        // Every field of before is still there.
        #expect(line.contains(#""security":"authenticated""#) && line.contains(#""uptimeSeconds":3723.9"#))

        // Without security the keys are there, as null.
        let plain = String(decoding: try ControlCodec.line(Fixtures.snapshot), as: UTF8.self)
        #expect(plain.contains(#""bonds":null"#) && plain.contains(#""pairing":null"#))
        var closed = Fixtures.windowOpen
        closed.windowRemainingSeconds = nil
        closed.passkey = nil
        #expect(String(decoding: try ControlCodec.line(closed), as: UTF8.self)
            == #"{"mode":"window","passkey":null,"passkeyMode":"fixed","windowRemainingSeconds":null}"# + "\n")
    }

    @Test func aStatusFromAnOlderDaemonStillDecodes() throws {
        // What a daemon before security sent: no bonds, pairing or central security fields.
        let old = #"{"address":"x","advertising":true,"board":"b","centrals":[{"address":"4A:5B:6C:7D:8E:9F","addressType":"random","#
            + #""coalesced":0,"dropped":0,"mtu":23,"queued":0,"security":"none","sent":0,"subscriptions":[]}],"#
            + #""deviceName":"d","sensors":[],"transport":"virtual","uptimeSeconds":1}"#
        let snapshot = try ControlCodec.decoder().decode(StatusSnapshot.self, from: Data(old.utf8))
        #expect(snapshot.bonds == nil && snapshot.pairing == nil)
        #expect(snapshot.centrals[0].bonded == nil && snapshot.centrals[0].keySize == nil)
        #expect(StatusFormatter.text(snapshot).contains("MTU 23  security none\n"))
    }
}

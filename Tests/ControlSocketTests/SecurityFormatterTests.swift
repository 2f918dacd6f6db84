import FoundationEssentials
import Testing
@testable import ControlSocket

@Suite struct SecurityFormatterTests {
    @Test func bondsTable() {
        let expected = """
            bonds (2):
              address            type    key  authenticated  secure connections  privacy (IRK)  created               last seen             connected
              4A:5B:6C:7D:8E:9F  random  16   yes            yes                 yes            2025-05-01 12:00:00Z  2025-05-02 12:00:00Z  yes
              00:1A:7D:DA:71:13  public  16   no             no                  no             2025-05-01 12:00:00Z  2025-05-01 12:00:00Z  no

            """
        #expect(SecurityFormatter.bondsText(Fixtures.bonds) == expected)
        #expect(SecurityFormatter.bondsText([]) == "no bonds: no central has bonded with this blesensord\n")
    }

    @Test func bondsJSONIsAnObjectThatRoundTrips() throws {
        let json = SecurityFormatter.bondsJSON(Fixtures.bonds)
        #expect(json.hasPrefix("{\n  \"bonds\" : [\n    {\n      \"address\" : \"4A:5B:6C:7D:8E:9F\",\n"))
        #expect(json.contains(#""createdAt" : "2025-05-01T12:00:00Z""#))
        struct Document: Decodable { var bonds: [BondStatus] }
        #expect(try ControlCodec.decoder().decode(Document.self, from: Data(json.utf8)).bonds == Fixtures.bonds)
        #expect(SecurityFormatter.bondsJSON([]) == "{\n  \"bonds\" : [\n\n  ]\n}\n")
    }

    @Test func removal() {
        #expect(SecurityFormatter.removedText(Fixtures.laptop)
            == "removed the bond with 00:1A:7D:DA:71:13 (public); it must pair again to use encryption\n")
        #expect(SecurityFormatter.removedText(Fixtures.phone).hasSuffix(
            "\nit is connected now and keeps this connection's encryption until it disconnects\n"))
    }

    @Test func pairingWindowText() {
        #expect(SecurityFormatter.pairingText(Fixtures.windowOpen) == """
            pairing window open for 1m 00s: centrals may pair until it closes
            passkey: 012345; enter it on the central when asked

            """)
        let always = PairingStatus(mode: .always, windowRemainingSeconds: nil, passkeyMode: .random, passkey: nil)
        #expect(SecurityFormatter.pairingText(always) == """
            pairing is always allowed (security.pairing: always); no window is needed
            passkey: a new random one per pairing; when the central asks for it, `sudo blesensor pair --passkey` shows it

            """)
        let shown = PairingStatus(mode: .always, windowRemainingSeconds: nil, passkeyMode: .random, passkey: "000042")
        #expect(SecurityFormatter.pairingText(shown).contains(
            "passkey: 000042 (the last random one; each pairing shows a new one: `sudo blesensor pair --passkey` when the central asks)\n"))
        let justWorks = PairingStatus(mode: .window, windowRemainingSeconds: 5, passkeyMode: .none, passkey: nil)
        #expect(SecurityFormatter.pairingText(justWorks)
            == "pairing window open for 5s: centrals may pair until it closes\nno passkey: the configured io-capability pairs without one\n")
    }

    @Test func statusShowsPairingBondsAndEachCentralsSecurity() {
        let text = StatusFormatter.text(Fixtures.secureSnapshot)
        #expect(text.contains("""
              uptime       1h 02m 03s
              pairing      window open, 1m 00s left; fixed passkey (`sudo blesensor pair --passkey` shows it)
              bonds        2: 4A:5B:6C:7D:8E:9F (random), 00:1A:7D:DA:71:13 (public)

            centrals (1):
              4A:5B:6C:7D:8E:9F (random)  MTU 247  security authenticated, 16-octet key, bonded

            """))

        var snapshot = Fixtures.secureSnapshot
        snapshot.bonds = []
        snapshot.pairing = PairingStatus(mode: .window, windowRemainingSeconds: nil, passkeyMode: .random, passkey: "000042")
        snapshot.centrals[0].securityLevel = "none"
        snapshot.centrals[0].keySize = 0
        snapshot.centrals[0].bonded = false
        let closed = StatusFormatter.text(snapshot)
        // Even a passkey that reached the snapshot is not printed: status is for everyone.
        #expect(closed.contains("  pairing      window closed (open one with `blesensor pair --window 60`); random passkey per pairing (`sudo blesensor pair --passkey` shows it)\n"))
        #expect(!closed.contains("000042"))
        #expect(closed.contains("  bonds        none\n"))
        #expect(closed.contains("MTU 247  security none, not bonded\n"))

        snapshot.pairing = PairingStatus(mode: .never, windowRemainingSeconds: nil, passkeyMode: .none, passkey: nil)
        #expect(StatusFormatter.text(snapshot).contains("  pairing      never (bonded centrals still reconnect)\n"))
    }

    @Test func statusJSONHasTheSecurityFields() throws {
        let json = StatusFormatter.json(Fixtures.secureSnapshot)
        #expect(json.contains("\"pairing\" : {\n    \"mode\" : \"window\",\n    \"passkey\" : \"012345\""))
        #expect(json.contains("\"bonded\" : true") && json.contains("\"keySize\" : 16") && json.contains("\"securityLevel\" : \"authenticated\""))
        #expect(try ControlCodec.decoder().decode(StatusSnapshot.self, from: Data(json.utf8)) == Fixtures.secureSnapshot)
    }

    @Test func passkeysKeepLeadingZeros() {
        #expect(PairingStatus.passkeyText(42) == "000042")
        #expect(PairingStatus.passkeyText(999_999) == "999999")
    }
}

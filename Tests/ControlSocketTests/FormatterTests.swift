import FoundationEssentials
import Testing
@testable import ControlSocket

@Suite struct FormatterTests {
    @Test func statusText() {
        let expected = """
            blesensord "blesensor-room" on raspberry-pi-4
              transport    hci:0
              address      C0:11:22:33:44:55 (random static)
              advertising  yes
              uptime       1h 02m 03s

            centrals (1):
              4A:5B:6C:7D:8E:9F (random)  MTU 247  security authenticated
                subscriptions  2A6E notify, 2A6F notify
                sent 1234  coalesced 5  dropped 0  queued 1

            sensors (3):
              room   bme280    21.50 °C  age 1.3s    120 ok, 0 failed  ok
              attic  sht31     —         age —       0 ok, 3 failed    failed: i2c 0x44 on /dev/i2c-1: Remote I/O error
              chest  max30102  72 bpm    age 1m 15s  40 ok, 1 failed   ok

            """
        #expect(StatusFormatter.text(Fixtures.snapshot) == expected)
    }

    @Test func statusTextWithNothingConnected() {
        var snapshot = Fixtures.snapshot
        snapshot.centrals = []
        snapshot.sensors = []
        snapshot.advertising = false
        snapshot.uptimeSeconds = 59.9
        let text = StatusFormatter.text(snapshot)
        #expect(text.contains("  advertising  no\n  uptime       59s\n"))
        #expect(text.hasSuffix("\ncentrals: none connected\n\nsensors: none configured\n"))
    }

    @Test func statusTextNamesWhatTheControllerCannotDo() throws {
        var snapshot = Fixtures.snapshot
        snapshot.controllerLimitations = [.init(text: "this controller cannot advertise while connected: it serves one central at a time", needsAction: false)]
        let text = StatusFormatter.text(snapshot)
        #expect(text.contains("  uptime       1h 02m 03s\n  controller   this controller cannot advertise while connected: it serves one central at a time\n\n"))
        let json = StatusFormatter.json(snapshot)
        let decoded = try ControlCodec.decoder().decode(StatusSnapshot.self, from: Data(json.utf8))
        #expect(decoded == snapshot)
    }

    @Test func statusJSONIsSortedPrettyAndRoundTrips() throws {
        let json = StatusFormatter.json(Fixtures.snapshot)
        #expect(json.hasPrefix("{\n  \"address\" : \"C0:11:22:33:44:55 (random static)\",\n  \"advertising\" : true,\n  \"board\" : "))
        #expect(json.contains(#""error" : "i2c 0x44 on /dev/i2c-1: Remote I/O error""#))
        #expect(json.hasSuffix("}\n"))
        let decoded = try JSONDecoder().decode(StatusSnapshot.self, from: Data(json.utf8))
        #expect(decoded == Fixtures.snapshot)
    }

    @Test func sensorLines() {
        let time = TimeOfDay(hour: 12, minute: 0, second: 1)
        #expect(SensorLineFormatter.line(Fixtures.bme280, at: time) == "12:00:01 room  bme280  21.50 °C  45.0 %RH  1013.25 hPa")
        #expect(SensorLineFormatter.line(Fixtures.heart, at: time) == "12:00:01 chest  max30102  72 bpm  RR 812, 790 ms  no contact")
        #expect(SensorLineFormatter.line(Fixtures.failed, at: time)
            == "12:00:01 attic  sht31  failed: i2c 0x44 on /dev/i2c-1: Remote I/O error (3 failed reads)")
        var quiet = Fixtures.heart
        quiet.state = .noSignal
        #expect(SensorLineFormatter.line(quiet, at: TimeOfDay(hour: 9, minute: 5, second: 30)) == "09:05:30 chest  max30102  no signal")
        var heating = Fixtures.bme280
        heating.state = .paused
        heating.error = "heater cool-down; ambient readings resume in 8.0 s"
        #expect(SensorLineFormatter.line(heating, at: time)
            == "12:00:01 room  bme280  21.50 °C  45.0 %RH  1013.25 hPa  paused: heater cool-down; ambient readings resume in 8.0 s")
        var single = Fixtures.bme280
        single.readings = []
        #expect(SensorLineFormatter.line(single, at: time) == "12:00:01 room  bme280  21.50 °C")
    }

    @Test func numbers() {
        #expect(NumberText.fixed(21.5, decimals: 2) == "21.50")
        #expect(NumberText.fixed(-0.004, decimals: 2) == "0.00")
        #expect(NumberText.fixed(-3.25, decimals: 1) == "-3.3")
        #expect(NumberText.fixed(1013.25, decimals: 2) == "1013.25")
        #expect(NumberText.fixed(.infinity, decimals: 2) == "inf")
        #expect(NumberText.fixed(.nan, decimals: 2) == "nan")
        #expect(NumberText.fixed(1e300, decimals: 2) == "1e+300")
        #expect(NumberText.duration(3723) == "1h 02m 03s")
        #expect(NumberText.duration(2 * 86_400 + 3723) == "2d 01h 02m 03s")
        #expect(NumberText.duration(307) == "5m 07s")
        #expect(NumberText.duration(-5) == "0s")
        #expect(NumberText.duration(.infinity) == "0s")
        #expect(NumberText.age(0.84) == "0.8s")
        #expect(NumberText.age(nil) == "—")
    }
}

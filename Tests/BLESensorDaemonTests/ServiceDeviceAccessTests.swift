import BridgeConfiguration
import Foundation
import HCI
import HCITransports
import Testing
@testable import BLESensorDaemon

/// The devices the packaged unit may open come from the configuration: the buses, chips and UART
/// it names, nothing else; dialout only for a uart: transport.
@Suite struct ServiceDeviceAccessTests {
    static let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards").path

    static func configuration(_ yaml: String) throws -> BridgeConfiguration {
        try ConfigurationLoader.load(yaml: yaml, fileName: "test.yaml", boardsDirectories: [boards], environment: [:]).get()
    }

    @Test func i2cSensorsAllowTheirBusesOnlyAndGPIOTheBoardsChips() throws {
        let configuration = try Self.configuration("""
            board: raspberry-pi-5
            transport: hci:0
            sensors:
              - {name: pulse, driver: max30102, publish: [heart-rate-measurement]}
              - {name: room, driver: bme280, bus: 3, publish: []}
              - {name: skin, driver: tmp102, publish: [temperature-measurement]}
              - {name: beat, driver: gpio-pulse, line: GPIO17, publish: []}
              - {name: probe, driver: ds18b20, publish: []}
              - {name: soc, driver: cpu-temp, publish: []}
            """)
        let access = ServiceDeviceAccess(configuration)
        #expect(access.devices == ["/dev/char/89:1", "/dev/char/89:3", "char-gpiochip"])
        #expect(access.groups.isEmpty)
        let text = access.dropIn(source: "/etc/blesensor/blesensor.yaml", groupExists: { _ in true })
        #expect(text.contains("[Service]\nDeviceAllow=/dev/char/89:1 rw\nDeviceAllow=/dev/char/89:3 rw\nDeviceAllow=char-gpiochip rw\n"))
        #expect(!text.contains("SupplementaryGroups") && !text.contains("tty"))
    }

    @Test func aUARTControllerAllowsItsPortAndDialout() throws {
        let configuration = try Self.configuration("""
            board: raspberry-pi-4b
            transport: uart:/dev/ttyUSB0
            sensors:
              - {name: soc, driver: cpu-temp, publish: []}
            """)
        let access = ServiceDeviceAccess(configuration)
        #expect(access == ServiceDeviceAccess(devices: ["char-ttyUSB"], groups: ["dialout"]))
        #expect(access.dropIn(source: "x", groupExists: { $0 == "dialout" }).hasSuffix("[Service]\nDeviceAllow=char-ttyUSB rw\nSupplementaryGroups=dialout\n"))
        // Without the group, systemd would fail the start with 216/GROUP: say so instead.
        let missing = access.dropIn(source: "x", groupExists: { _ in false })
        #expect(!missing.contains("SupplementaryGroups=") && missing.contains("# No group dialout on this system"))
    }

    @Test func theSimulatedBoardAndAnHCIAdapterNeedNoDevice() throws {
        let configuration = try BridgeConfiguration.demo(boardsDirectories: [Self.boards], environment: [:]).get()
        let access = ServiceDeviceAccess(configuration)
        #expect(access == ServiceDeviceAccess())
        #expect(!access.dropIn(source: "x", groupExists: { _ in true }).contains("DeviceAllow="))
    }

    @Test func mqttAllowsIPAndNothingElseDoes() throws {
        let base = "board: simulated\nsensors: [{name: room, driver: bme280}]\n"
        #expect(!ServiceDeviceAccess(try Self.configuration(base)).dropIn(source: "x", groupExists: { _ in true }).contains("AF_INET"))
        let access = ServiceDeviceAccess(try Self.configuration(base + "mqtt: {broker: mqtt://broker.lan}"))
        #expect(access.networkUsers == ["mqtt"])
        let text = access.dropIn(source: "x", groupExists: { _ in true })
        #expect(ServiceDeviceAccess.directives(of: text).suffix(2) == ["RestrictAddressFamilies=AF_INET AF_INET6", "IPAddressAllow=any"])
    }

    @Test func metricsOnLoopbackAllowOnlyLocalhostAndBeyondItAnyAddress() throws {
        let base = "board: simulated\nsensors: [{name: room, driver: bme280}]\n"
        func directives(_ yaml: String) throws -> [String] {
            ServiceDeviceAccess.directives(of: ServiceDeviceAccess(try Self.configuration(base + yaml)).dropIn(source: "x", groupExists: { _ in true }))
        }
        #expect(try directives("metrics: {}").suffix(2) == ["RestrictAddressFamilies=AF_INET AF_INET6", "IPAddressAllow=localhost"])
        #expect(try directives("metrics: {listen: '0.0.0.0:9879'}").suffix(2) == ["RestrictAddressFamilies=AF_INET AF_INET6", "IPAddressAllow=any"])
        #expect(try directives("metrics: {}\nmqtt: {broker: mqtt://broker.lan}").suffix(1) == ["IPAddressAllow=any"])
    }

    @Test func serialPortsByTheirClassAndNothingThatCouldAddADirective() {
        #expect(ServiceDeviceAccess.serialDevice("/dev/ttyUSB0") == "char-ttyUSB")
        #expect(ServiceDeviceAccess.serialDevice("/dev/ttyAMA10") == "char-ttyAMA")
        #expect(ServiceDeviceAccess.serialDevice("/dev/serial0") == "/dev/serial0")
        #expect(ServiceDeviceAccess.serialDevice("/dev/serial/by-id/usb-Nordic_nRF52-if00") == "/dev/serial/by-id/usb-Nordic_nRF52-if00")
        for hostile in ["/dev/ttyS0 rw\nExecStartPre=+/bin/sh", "/dev/tty%n", "/dev/a b", "/dev/x\\y", "/etc/shadow", "/dev/\u{7F}"] {
            #expect(ServiceDeviceAccess.serialDevice(hostile) == nil, "\(hostile.debugDescription)")
        }
        // The configuration loader refuses such a path before it gets that far.
        #expect(throws: HCITransportError.self) { try TransportSpecification(parsing: "uart:/dev/ttyS0 rw\nExecStartPre=+/bin/sh") }
        #expect(ServiceDeviceAccess.i2cDevice(bus: 1) == "/dev/char/89:1")
    }

    @Test func groupsAreReadFromTheGroupFileNotThroughNSS() throws {
        let file = NSTemporaryDirectory() + "group-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "root:x:0:\ndialout:x:20:pi\nblesensor:x:996:\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(ServiceDeviceAccess.groupExists("dialout", groupFile: file))
        #expect(!ServiceDeviceAccess.groupExists("dial", groupFile: file))
        #expect(!ServiceDeviceAccess.groupExists("dialout", groupFile: file + ".missing"))
    }

    @Test func theGeneratorWritesTheDropInAndARefusedConfigurationAllowsNothing() throws {
        let directory = NSTemporaryDirectory() + "device-policy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = ConfigurationLoader.load(yaml: "board: raspberry-pi-4b\ntransport: hci:0\nsensors:\n  - {name: t, driver: tmp102, publish: []}\n",
                                            fileName: "a.yaml", boardsDirectories: [Self.boards], environment: [:])
        #expect(DevicePolicy.generate(good, source: "/etc/blesensor/blesensor.yaml", directory: directory) == 0)
        let path = directory + "/blesensord.service.d/50-devices.conf"
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("DeviceAllow=/dev/char/89:1 rw"))
        #expect(ServiceDeviceAccess.staleDropInWarning(expected: written, generated: written) == nil)
        #expect(ServiceDeviceAccess.staleDropInWarning(expected: written, generated: nil) == nil)
        #expect(ServiceDeviceAccess.staleDropInWarning(expected: written, generated: "[Service]\n")?.contains("systemctl daemon-reload") == true)

        let broken = ConfigurationLoader.load(yaml: "devce-name: x\n", fileName: "b.yaml", boardsDirectories: [Self.boards], environment: [:])
        #expect(DevicePolicy.generate(broken, source: "/etc/blesensor/blesensor.yaml", directory: directory) == 0)
        let refused = try String(contentsOfFile: path, encoding: .utf8)
        #expect(refused.contains("problem(s)") && !refused.contains("DeviceAllow="))
        // A directory that cannot be written: the generator says so and exits non-zero.
        #expect(DevicePolicy.generate(good, source: "x", directory: "/proc/no-such-dir") == 1)
    }
}

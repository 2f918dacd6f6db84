import HCI
import Logging
import Testing

@testable import HCITransports

@Suite struct TransportSpecificationTests {
    static let valid: [(String, TransportSpecification)] = [
        ("tcp:127.0.0.1:1234", .tcp(host: "127.0.0.1", port: 1234)),
        ("tcp:localhost:65535", .tcp(host: "localhost", port: 65535)),
        ("tcp:[::1]:9000", .tcp(host: "::1", port: 9000)),
        ("tcp:::1:9000", .tcp(host: "::1", port: 9000)),
        ("hci:0", .hciUserChannel(index: 0)),
        ("hci:12", .hciUserChannel(index: 12)),
        ("uart:/dev/ttyAMA0", .uart(path: "/dev/ttyAMA0", baudRate: 115_200, flowControl: true)),
        ("uart:/dev/ttyAMA0?baud=115200&flow=on", .uart(path: "/dev/ttyAMA0", baudRate: 115_200, flowControl: true)),
        ("uart:/dev/ttyUSB0?flow=off", .uart(path: "/dev/ttyUSB0", baudRate: 115_200, flowControl: false)),
        ("uart:/dev/ttyS1?baud=9600", .uart(path: "/dev/ttyS1", baudRate: 9600, flowControl: true)),
        ("uart:/dev/ttyS1?flow=off&baud=1000000", .uart(path: "/dev/ttyS1", baudRate: 1_000_000, flowControl: false)),
        ("virtual", .virtual),
    ]

    @Test func parsesValidSpecifications() throws {
        for (text, expected) in Self.valid {
            #expect(try TransportSpecification(parsing: text) == expected, "\(text)")
        }
    }

    @Test func descriptionRoundTrips() throws {
        for (_, spec) in Self.valid {
            #expect(try TransportSpecification(parsing: spec.description) == spec)
        }
        #expect(TransportSpecification.tcp(host: "::1", port: 9000).description == "tcp:[::1]:9000")
        #expect(
            TransportSpecification.uart(path: "/dev/ttyS0", baudRate: 9600, flowControl: false).description
                == "uart:/dev/ttyS0?baud=9600&flow=off")
    }

    static let invalid: [(String, String)] = [
        ("", "the transport is empty"),
        ("bluetooth", "unknown transport 'bluetooth'"),
        ("usb:1", "unknown scheme 'usb'"),
        ("TCP:localhost:1", "unknown scheme 'TCP'"),
        ("tcp:", "missing port: expected tcp:HOST:PORT"),
        ("tcp:localhost", "missing port: expected tcp:HOST:PORT"),
        ("tcp:localhost:", "missing port: expected tcp:HOST:PORT"),
        ("tcp::1234", "missing host: expected tcp:HOST:PORT"),
        ("tcp:localhost:http", "port 'http' is not a number"),
        ("tcp:localhost:-1", "port '-1' is not a number"),
        ("tcp:localhost:0", "port 0 is out of range 1-65535"),
        ("tcp:localhost:65536", "port 65536 is out of range 1-65535"),
        ("tcp:localhost:99999999999999999999", "port 99999999999999999999 is out of range 1-65535"),
        ("tcp:[::1:80", "missing ']' after the IPv6 address"),
        ("tcp:[::1]", "missing port: expected tcp:[HOST]:PORT"),
        ("hci:", "missing adapter index: expected hci:N"),
        ("hci:zero", "adapter index 'zero' is not a number"),
        ("hci:-1", "adapter index '-1' is not a number"),
        ("hci:70000", "adapter index 70000 is out of range 0-65535"),
        ("uart:", "missing device path"),
        ("uart:?baud=9600", "missing device path"),
        ("uart:ttyS0", "device path 'ttyS0' must be absolute"),
        ("uart:/dev/ttyS0?speed=9600", "unknown option 'speed': supported options are baud and flow"),
        ("uart:/dev/ttyS0?baud=fast", "baud 'fast' is not a number"),
        ("uart:/dev/ttyS0?baud=12345", "baud rate 12345 is not supported; supported rates: 9600, 19200"),
        ("uart:/dev/ttyS0?baud=", "option 'baud' needs a value"),
        ("uart:/dev/ttyS0?baud", "option 'baud' needs a value"),
        ("uart:/dev/ttyS0?flow=maybe", "flow 'maybe' must be on or off"),
        ("uart:/dev/ttyS0?baud=9600&baud=19200", "option 'baud' is given twice"),
        ("uart:/dev/ttyS0?", "empty option"),
    ]

    @Test func rejectsMalformedSpecificationsWithPreciseReasons() {
        for (text, reasonPrefix) in Self.invalid {
            do {
                let spec = try TransportSpecification(parsing: text)
                Issue.record("'\(text)' parsed as \(spec)")
            } catch {
                guard case let .invalidSpecification(echoed, reason) = error else {
                    Issue.record("'\(text)': wrong error \(error)")
                    continue
                }
                #expect(echoed == text)
                #expect(reason.hasPrefix(reasonPrefix), "'\(text)': \(reason)")
                #expect(error.description.contains("Use tcp:HOST:PORT, hci:N"))
            }
        }
    }

    @Test func supportedBaudRatesCoverTheCommonControllerSpeeds() {
        for rate: UInt32 in [9600, 19200, 38400, 57600, 115_200, 230_400] {
            #expect(SerialBaudRates.isSupported(rate))
        }
        #if os(Linux)
        #expect(SerialBaudRates.isSupported(1_000_000))
        #expect(SerialBaudRates.isSupported(3_000_000))
        #expect(SerialBaudRates.supported.last == 4_000_000)
        #endif
        #expect(SerialBaudRates.supported == SerialBaudRates.supported.sorted())
    }

    @Test func factoryBuildsEachKindAndRefusesVirtual() throws {
        let logger = Logger(label: "test")
        #expect(try TransportSpecification.tcp(host: "localhost", port: 1).makeTransport(logger: logger) is TCPTransport)
        #expect(try TransportSpecification.hciUserChannel(index: 0).makeTransport(logger: logger) is HCIUserChannelTransport)
        let uart = try TransportSpecification(parsing: "uart:/dev/ttyS0?baud=9600").makeTransport(logger: logger)
        #expect(uart.name == "uart:/dev/ttyS0?baud=9600&flow=on")
        #expect(throws: HCITransportError.invalidSpecification("virtual", reason: "virtual is provided by the VirtualController module")) {
            _ = try TransportSpecification.virtual.makeTransport(logger: logger)
        }
    }
}

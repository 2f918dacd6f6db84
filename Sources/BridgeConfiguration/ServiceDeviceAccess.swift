import Foundation
import HCITransports
import Sensors

/// The device nodes the packaged service may open, from its configuration: systemd's
/// `DeviceAllow=` for the configured I2C buses, GPIO chips and UART, and the dialout group only
/// when the controller is on a UART. Written as a drop-in by the package's systemd generator
/// (`blesensord --write-device-policy`) at boot and on every `systemctl daemon-reload`, so a
/// compromised daemon cannot reach a bus or a serial port the board does not use.
public struct ServiceDeviceAccess: Equatable, Sendable {
    /// `DeviceAllow=` values: a path, or `char-NAME` when only the device class is known.
    public var devices: [String] = []
    /// Supplementary groups the configuration needs beyond the user's own (dialout for a UART).
    public var groups: [String] = []
    /// The sections that need IP (`mqtt` reaches its broker); the unit allows none without them.
    public var networkUsers: [String] = []
    /// The metrics endpoint listens beyond loopback: scrapers may come from any address.
    public var scrapedFromElsewhere = false

    /// Where the generator writes it, under the generator's output directory.
    public static let dropInName = "blesensord.service.d/50-devices.conf"
    /// Where a running daemon finds the drop-in systemd generated (the normal generator directory).
    public static let generatedPath = "/run/systemd/generator/" + dropInName
    /// Where the package installs the generator: its presence means the unit's devices come from it.
    public static let generatorPath = "/lib/systemd/system-generators/blesensord-devices"

    public init(devices: [String] = [], groups: [String] = [], networkUsers: [String] = []) {
        self.devices = devices
        self.groups = groups
        self.networkUsers = networkUsers
    }

    public init(_ configuration: BridgeConfiguration) {
        var devices: [String] = []
        if !configuration.board.simulated {
            for sensor in configuration.sensors {
                if sensor.driver == .gpioPulse {
                    // gpiochip's major is dynamic and a chip may probe after the unit starts: the class.
                    devices.append("char-gpiochip")
                } else if sensor.driver.usesI2C {
                    devices.append(Self.i2cDevice(bus: sensor.i2cBus ?? configuration.board.i2cBus))
                }  // The others read sysfs files: no device node.
            }
        }
        if case let .uart(path, _, _)? = try? TransportSpecification(parsing: configuration.transport), let device = Self.serialDevice(path) {
            devices.append(device)
            groups.append("dialout")
        }
        var seen: Set<String> = []
        self.devices = devices.filter { seen.insert($0).inserted }
        if configuration.mqtt != nil { networkUsers.append("mqtt") }
        if let metrics = configuration.metrics {
            networkUsers.append("metrics")
            scrapedFromElsewhere = !MetricsSettings.loopbackHosts.contains(metrics.host)
        }
    }

    /// i2c-dev's major is fixed (89) and the minor is the bus: systemd takes `/dev/char/89:N`
    /// without the node existing, where `/dev/i2c-N` is looked up once when the unit starts and
    /// skipped for good when udev has not made it yet.
    public static func i2cDevice(bus: Int) -> String { "/dev/char/89:\(bus)" }

    /// A UART by its driver's class (`/dev/ttyUSB0` → `char-ttyUSB`): a USB adapter plugged in
    /// after the start or renumbered by a reset stays allowed. Another name (`/dev/serial0`, a
    /// by-id link) as itself, resolved when the unit starts. Nil for a path that would not be one
    /// value in a unit file (whitespace, control characters, `%` or a backslash): whoever writes the
    /// configuration must not be able to add directives to a unit that runs steps as root.
    public static func serialDevice(_ path: String) -> String? {
        guard path.hasPrefix("/dev/"), path.count <= 256,
              path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "%" && $0 != "\\" }) else { return nil }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        let letters = name.prefix { $0.isLetter }
        let number = name.dropFirst(letters.count)
        if letters.hasPrefix("tty"), letters.count > 3, !number.isEmpty, number.allSatisfy(\.isNumber) { return "char-\(letters)" }
        return path
    }

    /// The drop-in's text. A group that does not exist is left out (systemd would fail the start
    /// with status 216/GROUP) and named in a comment instead.
    public func dropIn(source: String, groupExists: (String) -> Bool) -> String {
        var lines = [
            "# Generated from \(source) by `blesensord --write-device-policy` (the package's systemd",
            "# generator) at boot and on every `systemctl daemon-reload`. Edit the configuration, then run",
            "# `sudo systemctl daemon-reload && sudo systemctl restart blesensord`; changes here are overwritten.",
            "[Service]",
        ]
        if devices.isEmpty { lines.append("# No sensor bus or serial port in the configuration: no device beyond the unit's own.") }
        lines += devices.map { "DeviceAllow=\($0) rw" }
        for group in groups {
            lines.append(groupExists(group) ? "SupplementaryGroups=\(group)" : "# No group \(group) on this system; the device's owner must let blesensor in.")
        }
        if !networkUsers.isEmpty {
            // Added to the unit's AF_BLUETOOTH AF_UNIX; an allow list wins over its IPAddressDeny=any.
            // A broker's name may resolve to any address, and a scraper may come from any; an
            // endpoint on loopback alone needs only that.
            let anywhere = networkUsers.contains("mqtt") || scrapedFromElsewhere
            lines += ["# \(networkUsers.joined(separator: ", ")): IP sockets, \(anywhere ? "to and from any address" : "on loopback only").",
                      "RestrictAddressFamilies=AF_INET AF_INET6", "IPAddressAllow=\(anywhere ? "any" : "localhost")"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// For a configuration the daemon would refuse: nothing beyond the unit's own devices (the
    /// daemon reports the problems and does not start).
    public static func refusedConfigurationDropIn(source: String, problems: Int) -> String {
        "# Generated by `blesensord --write-device-policy`: \(source) has \(problems) problem(s) "
            + "(`blesensor config check` lists them), so no sensor device is allowed.\n[Service]\n"
    }

    /// The lines systemd acts on (no comments, no blank lines): two drop-ins that differ only in
    /// their comments (another configuration path, say) grant the same.
    public static func directives(of text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The groups a drop-in's `SupplementaryGroups=` lines give the service.
    public static func supplementaryGroups(of text: String) -> [String] {
        directives(of: text).filter { $0.hasPrefix("SupplementaryGroups=") }
            .flatMap { $0.dropFirst("SupplementaryGroups=".count).split(separator: " ").map(String.init) }
    }

    /// Nil when the generated drop-in grants what `expected` grants, else what to tell the person
    /// who changed the configuration since.
    public static func staleDropInWarning(expected: String, generated: String?) -> String? {
        guard let generated, directives(of: generated) != directives(of: expected) else { return nil }
        return "the devices systemd lets the service open (\(generatedPath)) were generated from an older "
            + "/etc/blesensor/blesensor.yaml (the file the generator reads); run `sudo systemctl daemon-reload && sudo systemctl "
            + "restart blesensord`, or sensors on a new bus or port fail with 'permission denied'. A unit edited to run "
            + "another --config or --transport gets its devices from /etc/blesensor/blesensor.yaml all the same: add "
            + "DeviceAllow= to that edit"
    }
}

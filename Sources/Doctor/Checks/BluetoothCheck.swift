import BridgeConfiguration
import HCITransports

extension Examination {
    /// The controller the configuration names: an adapter (hci:N, or hci0 for auto), a serial
    /// device (uart:), or a note for tcp: and virtual.
    mutating func checkBluetooth(_ configuration: BridgeConfiguration) {
        let transport = configuration.transport
        let subject = "bluetooth \(transport)"
        if transport == "auto" {
            checkAutomaticAdapter(configuration)
            return
        }
        let specification: TransportSpecification
        do {
            specification = try TransportSpecification(parsing: transport)
        } catch {
            // The loader already refused such a file; kept total all the same.
            add(.bluetooth, .fail, subject, error.description, fix: "set transport: to hci:0, uart:/dev/ttyAMA0, tcp:HOST:PORT or virtual")
            return
        }
        switch specification {
        case .virtual:
            if configuration.board.simulated {
                add(.bluetooth, .info, subject, "the in-process virtual controller: no radio (demo and tests)")
            } else {
                add(.bluetooth, .warn, subject, "the in-process virtual controller: no radio, phones will not see this board",
                    fix: "remove transport: from the configuration to use the board's controller (\(configuration.board.transport))")
            }
        case .tcp:
            add(.bluetooth, .info, subject, "a controller over TCP (development); under systemd it needs a drop-in with "
                + "RestrictAddressFamilies=AF_UNIX AF_BLUETOOTH AF_INET AF_INET6 (sudo systemctl edit blesensord)")
        case let .uart(path, _, _):
            checkSerialController(path)
        case let .hciUserChannel(index):
            checkAdapter(index, board: configuration.board)
        }
    }

    /// `auto` takes hci0 when the kernel has it, else runs on the virtual controller.
    private mutating func checkAutomaticAdapter(_ configuration: BridgeConfiguration) {
        let probe = BluetoothAdapterProbe(sysfsRoot: root.resolve("/sys"), calls: environment.hciCalls)
        if (try? probe.exists(0)) == true {
            checkAdapter(0, board: configuration.board)
        } else if configuration.board.simulated {
            add(.bluetooth, .info, "bluetooth auto", "no hci0: the daemon runs on the virtual controller (no radio)")
        } else {
            add(.bluetooth, .warn, "bluetooth auto", "no hci0: the daemon falls back to the virtual controller and phones will not see it",
                fix: bluetoothMissingFix(configuration.board))
        }
    }

    /// The serial device of an external controller, and the service user's access to it.
    private mutating func checkSerialController(_ path: String) {
        guard let info = root.info(path) else {
            add(.bluetooth, .fail, path, "missing (the uart: controller)",
                fix: "connect the controller, or correct the transport: path (ls /dev/ttyAMA* /dev/ttyUSB* /dev/ttyACM*)")
            return
        }
        guard info.kind == .characterDevice else {
            add(.bluetooth, .fail, path, "is a \(info.kind.rawValue), not a serial device", fix: "correct the transport: path")
            return
        }
        let device = path.split(separator: "/").last.map(String.init) ?? path
        add(serviceAccess(.bluetooth, path, info, need: .readWrite, usualGroup: "dialout",
                          what: #"/etc/udev/rules.d/60-bluetooth-uart.rules: KERNEL==""# + device + #"", GROUP="dialout", MODE="0660""#))
    }

    /// The adapter (listing the ones there are when it is missing), its rfkill switch, whether it
    /// is up, and whether bluetoothd runs beside it; the last two only inform: blesensord powers
    /// the adapter down and takes it from BlueZ itself.
    private mutating func checkAdapter(_ index: UInt16, board: BoardProfile) {
        let name = "hci\(index)"
        let probe = BluetoothAdapterProbe(sysfsRoot: root.resolve("/sys"), calls: environment.hciCalls)
        let adapters: [BluetoothAdapterProbe.Adapter]
        do {
            adapters = try probe.adapters()
        } catch {
            add(.bluetooth, .fail, name, "cannot list the adapters: \(error)", fix: "check that sysfs is mounted on /sys")
            return
        }
        guard adapters.contains(BluetoothAdapterProbe.Adapter(index: index)) else {
            let seen = adapters.isEmpty ? "the kernel has no Bluetooth adapter" : "present: " + adapters.map(\.name).joined(separator: ", ")
            add(.bluetooth, .fail, name, "missing; \(seen)",
                fix: adapters.isEmpty ? bluetoothMissingFix(board) : "set transport: hci:N to one of those adapters")
            return
        }
        checkRfkill(probe, index)
        do {
            let up = try probe.isUp(index)
            add(.bluetooth, .info, "\(name) power", up
                ? "up (powered by the kernel's Bluetooth stack, or in use by blesensord); blesensord powers it down itself when it takes it"
                : "down; blesensord takes it as it is")
        } catch let error {
            if case .bluetoothUnsupported = error {
                add(.bluetooth, .fail, "\(name) power", error.description, fix: "sudo modprobe bluetooth (and check that the kernel has Bluetooth)")
            } else {
                add(.bluetooth, .info, "\(name) power", "could not tell whether it is up: \(error)")
            }
        }
        if ProcessTable(root: root).isRunning("bluetoothd") {
            add(.bluetooth, .info, "bluetoothd", "running: fine, blesensord takes the adapter from it")
        }
    }

    private mutating func checkRfkill(_ probe: BluetoothAdapterProbe, _ index: UInt16) {
        let name = "hci\(index)"
        let rfkill: RfkillSwitch?
        do {
            rfkill = try probe.rfkillState(of: index)
        } catch {
            add(.bluetooth, .warn, name, "present; its rfkill switch cannot be read: \(error)", fix: "rfkill list shows the switches")
            return
        }
        guard let rfkill else {
            add(.bluetooth, .ok, name, "present (no rfkill switch)")
            return
        }
        if rfkill.hardBlocked {
            add(.bluetooth, .fail, name, "present but hard-blocked by \(rfkill.label): no software can switch its radio on",
                fix: "check the device's wireless switch or key, or its firmware settings; rfkill list shows the state")
        } else if rfkill.softBlocked {
            add(.bluetooth, .warn, name, "present but soft-blocked by \(rfkill.label): its radio is off until unblocked "
                + "(blesensord clears a soft block itself only where it may write /dev/rfkill)",
                fix: "sudo rfkill unblock bluetooth; if it comes back, rfkill event shows what blocks it")
        } else {
            add(.bluetooth, .ok, name, "present, not blocked by \(rfkill.label)")
        }
    }

    func bluetoothMissingFix(_ board: BoardProfile) -> String {
        if isRaspberryPi(board) {
            return "make sure /boot/firmware/config.txt has no dtoverlay=disable-bt and the pi-bluetooth package is installed, "
                + "then reboot; dmesg | grep -i bluetooth says why the adapter did not come up"
        }
        return "plug in or enable the Bluetooth adapter (ls /sys/class/bluetooth lists what the kernel has)"
    }
}

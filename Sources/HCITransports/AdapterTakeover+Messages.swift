#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HCI

/// What the user reads when an adapter cannot be taken: the cause in words and the command that fixes it.
extension AdapterTakeover {
    static let permissionHint =
        "run as root, or grant CAP_NET_ADMIN and CAP_NET_RAW (`sudo setcap cap_net_admin,cap_net_raw+ep $(command -v blesensord)`, or AmbientCapabilities= in the systemd unit as the packaged one does)"

    /// What another holder of the user channel may be.
    var userChannelHeldHint: String {
        "another program has its HCI user channel (another blesensord, a `blesensor` central command, btproxy or a Bumble app): stop that program, or use another adapter with --transport hci:N"
    }

    func socketFailure(_ error: SystemErrno) -> HCITransportError {
        let operation = "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)"
        switch error.code {
        case EAFNOSUPPORT, EPROTONOSUPPORT: return .bluetoothUnsupported("\(operation) failed: \(error)")
        case EPERM, EACCES: return .permissionDenied(device, hint: Self.permissionHint)
        default: return SystemCall.failure(operation, errno: error.code)
        }
    }

    func powerDownFailure(_ error: SystemErrno) -> HCITransportError {
        switch error.code {
        case EPERM, EACCES:
            return .permissionDenied(device, hint: "\(device) is up (bluetoothd keeps it powered) and powering it down needs CAP_NET_ADMIN, which this process lacks: run as root, or grant it (`sudo setcap cap_net_admin,cap_net_raw+ep $(command -v blesensord)`, or AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW in the systemd unit, as the packaged unit does); or power it down yourself first: `sudo btmgmt --index \(index) power off`")
        case EBUSY: return .adapterBusy(device, hint: userChannelHeldHint)
        case ENODEV: return notFound()
        default: return SystemCall.failure("HCIDEVDOWN \(device)", errno: error.code)
        }
    }

    func bindFailure(_ error: SystemErrno) -> HCITransportError {
        switch error.code {
        case EUSERS: return .adapterBusy(device, hint: userChannelHeldHint)
        case EPERM, EACCES: return .permissionDenied(device, hint: Self.permissionHint)
        case ENODEV: return notFound()
        case EAFNOSUPPORT, EPROTONOSUPPORT: return .bluetoothUnsupported("bind \(device) user channel failed: \(error)")
        default: return SystemCall.failure("bind \(device) user channel", errno: error.code)
        }
    }

    /// Still busy after every attempt: who powers it up, or that the kernel is not done with it.
    func busy(attempts: Int, elapsed: Duration, poweredDown: Int) -> HCITransportError {
        let time = "\(attempts) attempts in \(Self.seconds(elapsed)) s"
        if poweredDown > 0 {
            return .adapterBusy(device, hint: "it was powered up again each time it was powered down (\(time)), usually by bluetoothd: stop it with `sudo systemctl stop bluetooth` (and `sudo systemctl disable bluetooth` to keep it off at boot), then start blesensord again")
        }
        return .adapterBusy(device, hint: "the kernel kept it busy (\(time)): it may still be setting the controller up (`dmesg | grep -i bluetooth` shows firmware loading) or another program holds it; stop bluetoothd (`sudo systemctl stop bluetooth`) and start blesensord again. If it stays busy after every restart, the kernel's setup of the controller failed and holds it for good: a Realtek USB adapter whose firmware is missing does this (dmesg: \"rtl_bt\" … \"firmware file … not found\"; install the firmware, on Debian `sudo apt install firmware-realtek`, then unplug and replug it)")
    }

    /// ENODEV: the adapters that do exist, else where on-board Bluetooth and dongles go missing.
    func notFound() -> HCITransportError {
        let present: [BluetoothAdapterProbe.Adapter]
        do { present = try probe.adapters() } catch {
            return .adapterNotFound(device, hint: "the adapters could not be listed (\(error)); `ls /sys/class/bluetooth` shows them")
        }
        if let other = present.first {
            let names = present.map(\.name).joined(separator: ", ")
            return .adapterNotFound(device, hint: "the kernel has \(names): set `transport: hci:\(other.index)` in /etc/blesensor/blesensor.yaml (or pass --transport hci:\(other.index)); if \(device) is a USB adapter, check that it is plugged in (`lsusb`)")
        }
        return .adapterNotFound(device, hint: "the kernel has no Bluetooth adapter. On a Raspberry Pi the on-board one is off while /boot/firmware/config.txt (/boot/config.txt on older images) has `dtoverlay=disable-bt`: remove that line and reboot. A USB adapter: check that it is plugged in (`lsusb`). `dmesg | grep -i bluetooth` shows what the kernel found")
    }

    func hardBlockHint(_ state: RfkillSwitch) -> String {
        "\(state.label) is switched off by hardware or firmware and no software can clear it: check the device's wireless switch or key, or its firmware (BIOS/UEFI) settings; `rfkill list` shows the state"
    }

    func softBlockHint(_ state: RfkillSwitch, _ error: SystemErrno) -> String {
        "run `sudo rfkill unblock bluetooth`, then start blesensord again (this process may not unblock \(state.label) itself: /dev/rfkill: \(error); the packaged service unblocks it as root before starting, with `blesensord --unblock-rfkill`)"
    }

    func blockedAgainHint(_ state: RfkillSwitch) -> String {
        "\(state.label) was blocked again after blesensord unblocked it (by systemd-rfkill restoring a saved state, NetworkManager or an airplane mode): run `sudo rfkill unblock bluetooth`, and find what blocks it with `rfkill event`"
    }

    func unknownBlockHint(_ error: AdapterProbeError?) -> String {
        let detail = error.map { " (its switch could not be read: \($0))" } ?? ""
        return "`rfkill list` shows which switch blocks it; `sudo rfkill unblock bluetooth` clears a soft block\(detail)"
    }

    /// `2.5` for 2 500 ms.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = max(0, duration.wholeMilliseconds)
        return "\(milliseconds / 1000).\((milliseconds % 1000) / 100)"
    }
}

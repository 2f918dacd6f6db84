import Foundation
import Testing

/// The unit's boot design: the daemon takes the adapter itself, so it orders after bluetoothd
/// instead of conflicting with it, and a root pre-start step clears a soft rfkill block.
@Suite struct UnitOrderingTests {
    static let lines: [Substring] = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("systemd/blesensord.service").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }()

    @Test func ordersAfterBluetoothdWithoutConflictingWithIt() {
        #expect(!Self.lines.isEmpty)
        #expect(!Self.lines.contains { $0.hasPrefix("Conflicts=") })
        let after = Self.lines.filter { $0.hasPrefix("After=") }.flatMap { $0.dropFirst("After=".count).split(separator: " ") }
        #expect(after.contains("bluetooth.service"))
        #expect(after.contains("systemd-rfkill.service"))
        // Raspberry Pi OS's bthelper powers hci0 up and sends vendor commands from udev at boot.
        #expect(after.contains("bthelper@hci0.service"))
    }

    @Test func clearsASoftRfkillBlockAsRootBeforeStartingUnprivileged() {
        // "!": root, but inside the sandbox (which allows /dev/rfkill); "-": a failure does not stop the start.
        #expect(Self.lines.contains("ExecStartPre=-!/usr/bin/blesensord --config /etc/blesensor/blesensor.yaml --unblock-rfkill"))
        #expect(Self.lines.contains("DeviceAllow=/dev/rfkill w"))
        #expect(Self.lines.contains("User=blesensor"))
        #expect(Self.lines.contains("AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW"))
    }
}

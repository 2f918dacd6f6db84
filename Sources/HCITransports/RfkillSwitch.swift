/// An adapter's rfkill switch as sysfs shows it (`/sys/class/bluetooth/hciN/rfkillM`).
public struct RfkillSwitch: Sendable, Equatable {
    /// M of `rfkillM`: what /dev/rfkill and `rfkill unblock M` take.
    public var index: UInt32
    /// The switch's name (`hci0`), empty when sysfs gives none.
    public var name: String
    /// `bluetooth`, `wlan`, ...; empty when sysfs gives none.
    public var type: String
    /// Blocked by software (`rfkill block`, airplane mode, a saved state restored at boot).
    public var softBlocked: Bool
    /// Blocked by a hardware switch or the firmware; software cannot clear it.
    public var hardBlocked: Bool

    public init(index: UInt32, name: String, type: String, softBlocked: Bool, hardBlocked: Bool) {
        self.index = index
        self.name = name
        self.type = type
        self.softBlocked = softBlocked
        self.hardBlocked = hardBlocked
    }

    public var isBlocked: Bool { softBlocked || hardBlocked }

    /// `rfkill0 (hci0, bluetooth)`.
    public var label: String {
        let details = [name, type].filter { !$0.isEmpty }
        return details.isEmpty ? "rfkill\(index)" : "rfkill\(index) (\(details.joined(separator: ", ")))"
    }
}

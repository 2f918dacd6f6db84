import BLECore

/// Public addresses that controllers report when no address of their own was programmed: the
/// chip's or the clone maker's default, the same on every unit. Used as a board's identity, phones
/// confuse boards with each other and a bond made with one board is offered to another. Sources:
/// Linux drivers/bluetooth/btbcm.c (the Broadcom defaults the kernel itself treats as invalid),
/// Raspberry Pi reports (raspberrypi/firmware#860, RPi-Distro/pi-bluetooth#12 and #29,
/// agherzan/meta-raspberrypi#236, hypriot/image-builder-rpi#288) and the many public logs of
/// cheap CSR8510 clone dongles that all report 00:1A:7D:DA:71:13.
public struct SharedDefaultAddress: Sendable, Equatable, CustomStringConvertible {
    /// `43:45:C0:00:1F:AC`.
    public var address: String
    /// Whose default it is.
    public var origin: String

    public var description: String { "\(address), \(origin)" }

    public static let known: [SharedDefaultAddress] = [
        .init(address: "43:45:C0:00:1F:AC", origin: "the default of Broadcom/Cypress BCM4345C0 controllers (Raspberry Pi 3B+, 4, 400, CM4) whose firmware was given no address"),
        .init(address: "43:43:A0:12:1F:AC", origin: "the default of Broadcom BCM43430A0 controllers (Raspberry Pi 3B, Zero W) given no address"),
        .init(address: "43:43:A1:12:1F:AC", origin: "the default of Broadcom BCM43430A1 controllers (Raspberry Pi 3B, Zero W) given no address"),
        .init(address: "AA:AA:AA:AA:AA:AA", origin: "the placeholder of Broadcom BCM43430A1 and Raspberry Pi 4/CM4 controllers given no address"),
        .init(address: "43:45:C5:00:1F:AC", origin: "the default of Broadcom BCM4345C5 controllers given no address"),
        .init(address: "43:34:1B:00:1F:AC", origin: "the default of Broadcom BCM43341B controllers given no address"),
        .init(address: "43:34:B0:00:00:00", origin: "the default of Broadcom BCM4334B0 controllers given no address"),
        .init(address: "43:30:B1:00:00:00", origin: "the default of Broadcom BCM4330B1 controllers given no address"),
        .init(address: "43:24:B3:00:00:00", origin: "the default of Broadcom BCM4324B3 controllers given no address"),
        .init(address: "20:76:A0:00:56:79", origin: "the default of Broadcom BCM2076B1 controllers given no address"),
        .init(address: "00:20:70:02:A0:00", origin: "the default of Broadcom BCM20702A0 controllers given no address"),
        .init(address: "20:70:02:A0:00:00", origin: "the default of Broadcom BCM20702A1 controllers given no address"),
        .init(address: "00:1A:7D:DA:71:13", origin: "the address every cheap CSR8510 clone dongle reports"),
        .init(address: "00:00:00:00:00:00", origin: "no address at all: the controller was never given one"),
        .init(address: "FF:FF:FF:FF:FF:FF", origin: "not an address: the controller was never given one"),
        .init(address: "11:22:33:44:55:66", origin: "the example address of how-tos, written to a controller by hand"),
    ]

    /// The entry for `address`, if it is a known shared default.
    public static func lookup(_ address: BluetoothAddress) -> SharedDefaultAddress? {
        let text = address.description
        return known.first { $0.address == text }
    }
}

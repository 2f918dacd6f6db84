import BLECore

/// The spec and the RFCs print values most significant octet first; SMP carries them least significant
/// first. These turn the printed hex (spaces allowed) into the byte order the API takes.
enum SampleData {
    /// The bytes in the printed order, for RFC 4493 and for values the spec gives as text (key IDs).
    static func hex(_ text: String) -> [UInt8] {
        (try? [UInt8](hex: text)) ?? []
    }

    /// The bytes of a value printed most significant first, in SMP wire order.
    static func wire(_ text: String) -> [UInt8] {
        hex(text).reversed()
    }

    /// A device address printed most significant first (as in the spec's samples), with its type.
    static func address(_ text: String, _ type: AddressType) -> DeviceAddress {
        DeviceAddress(BluetoothAddress(littleEndian: wire(text)), type: type)
    }
}

import BLECore

/// Bytes from a hex vector as specs print them (BLECore's parser: spaces, colons or dashes between
/// octets). A malformed vector yields `[0xEE, 0xEE, 0xEE]`, which no test expects, so the test using
/// it fails on its own assertion instead of the helper trapping.
public func hex(_ text: String) -> [UInt8] {
    (try? [UInt8](hex: text)) ?? [0xEE, 0xEE, 0xEE]
}

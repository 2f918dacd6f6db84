import CBluetoothShim

/// The baud rates this platform's termios can set (from the C shim's table, which only lists
/// speeds whose `Bnnn` constant exists here).
public enum SerialBaudRates {
    public static let supported: [UInt32] = {
        var pointer: UnsafePointer<UInt32>?
        let count = bls_serial_supported_baud_rates(&pointer)
        guard let pointer else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }()

    public static func isSupported(_ rate: UInt32) -> Bool {
        supported.contains(rate)
    }

    /// "9600, 19200, …" for error messages.
    public static var listDescription: String {
        supported.map(String.init).joined(separator: ", ")
    }
}

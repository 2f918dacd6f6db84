import Foundation

/// A temporary w1 sysfs tree (devices/28-*/w1_slave) in the w1-therm format, for DS18B20 tests.
public final class SimulatedOneWireTree: Sendable {
    public let root: String

    public init() throws {
        root = NSTemporaryDirectory() + "w1-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    public var bus: OneWireBus { OneWireBus(root: root) }

    /// Writes a w1_slave file for a 12-bit conversion of `celsius`; `crcOK: false` corrupts the CRC.
    public func setTemperature(id: String, celsius: Double, crcOK: Bool = true) throws {
        let raw = UInt16(bitPattern: Int16(saturating: (celsius * 16).rounded()))
        let scratchpad: [UInt8] = [UInt8(truncatingIfNeeded: raw), UInt8(raw >> 8), 0x4B, 0x46, 0x7F, 0xFF, 0x0C, 0x10]
        var crc = CRC8.maxim(scratchpad)
        if !crcOK { crc ^= 0x5A }
        try write(id: id, scratchpad: scratchpad + [crc], verdict: crcOK ? "YES" : "NO",
                  milli: Int((Double(Int16(bitPattern: raw)) / 16 * 1000).rounded()))
    }

    /// Writes an arbitrary scratchpad, e.g. all zeros for a disconnected probe.
    public func write(id: String, scratchpad: [UInt8], verdict: String, milli: Int) throws {
        let directory = root + "/" + id
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let hex = scratchpad.map { String(format: "%02x", $0) }.joined(separator: " ")
        let crc = scratchpad.last.map { String(format: "%02x", $0) } ?? "00"
        let text = "\(hex) : crc=\(crc) \(verdict)\n\(hex) t=\(milli)\n"
        try text.write(toFile: directory + "/w1_slave", atomically: true, encoding: .utf8)
    }

    public func unplug(id: String) throws {
        try FileManager.default.removeItem(atPath: root + "/" + id)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }
}

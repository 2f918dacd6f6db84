import Foundation

/// A temporary w1 sysfs tree (devices/28-*/w1_slave) in the w1-therm format, for DS18B20 tests.
public final class SimulatedOneWireTree: Sendable {
    public let root: String

    public init() throws {
        root = NSTemporaryDirectory() + "w1-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    public var bus: OneWireBus { OneWireBus(root: root) }

    /// Writes a w1_slave file for a 12-bit conversion of `celsius`. `crcOK: false` models a CRC failure
    /// on every retry, which w1_therm (Linux 5.9 and later) reports as an empty file.
    public func setTemperature(id: String, celsius: Double, crcOK: Bool = true) throws {
        guard crcOK else { return try setNoAnswer(id: id) }
        let raw = UInt16(bitPattern: Int16(saturating: (celsius * 16).rounded()))
        // Byte 6 (reserved) reads 0x10 minus the fraction bits after a conversion, as real parts show.
        let scratchpad: [UInt8] = [UInt8(truncatingIfNeeded: raw), UInt8(raw >> 8), 0x4B, 0x46, 0x7F, 0xFF,
                                   0x10 - UInt8(raw & 0x0F), 0x10]
        try write(id: id, scratchpad: scratchpad + [CRC8.maxim(scratchpad)], verdict: "YES",
                  milli: Int((Double(Int16(bitPattern: raw)) / 16 * 1000).rounded()))
    }

    /// The probe did not answer: w1_therm (Linux 5.9 and later) gives an empty w1_slave.
    public func setNoAnswer(id: String) throws {
        let directory = root + "/" + id
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "".write(toFile: directory + "/w1_slave", atomically: true, encoding: .utf8)
    }

    /// The power-on scratchpad (datasheet figure 9: 85 °C, byte 6 = 0x0C): no conversion ran.
    public func setPowerOnScratchpad(id: String) throws {
        try write(id: id, scratchpad: [0x50, 0x05, 0x4B, 0x46, 0x7F, 0xFF, 0x0C, 0x10, 0x1C], verdict: "YES", milli: 85_000)
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

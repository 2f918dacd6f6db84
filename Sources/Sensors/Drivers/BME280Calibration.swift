import BLECore

/// Factory trimming parameters (NVM 0x88...0xA1 and 0xE1...0xE7) and the datasheet's integer
/// compensation (BME280 datasheet section 4.2.3). All arithmetic wraps like the C reference so a
/// corrupted calibration can give nonsense but never traps.
public struct BME280Calibration: Sendable, Equatable {
    public var t1: UInt16, t2: Int16, t3: Int16
    public var p1: UInt16, p2: Int16, p3: Int16, p4: Int16, p5: Int16, p6: Int16, p7: Int16, p8: Int16, p9: Int16
    public var h1: UInt8, h2: Int16, h3: UInt8, h4: Int16, h5: Int16, h6: Int8

    public init(t1: UInt16, t2: Int16, t3: Int16,
                p1: UInt16, p2: Int16, p3: Int16, p4: Int16, p5: Int16, p6: Int16, p7: Int16, p8: Int16, p9: Int16,
                h1: UInt8, h2: Int16, h3: UInt8, h4: Int16, h5: Int16, h6: Int8) {
        self.t1 = t1; self.t2 = t2; self.t3 = t3
        self.p1 = p1; self.p2 = p2; self.p3 = p3; self.p4 = p4; self.p5 = p5
        self.p6 = p6; self.p7 = p7; self.p8 = p8; self.p9 = p9
        self.h1 = h1; self.h2 = h2; self.h3 = h3; self.h4 = h4; self.h5 = h5; self.h6 = h6
    }

    /// `block1` is 0x88...0xA1 (26 bytes), `block2` is 0xE1...0xE7 (7 bytes).
    public init(block1: [UInt8], block2: [UInt8]) throws(ByteReaderError) {
        var reader = ByteReader(block1)
        t1 = try reader.readUInt16(); t2 = try reader.readInt16(); t3 = try reader.readInt16()
        p1 = try reader.readUInt16(); p2 = try reader.readInt16(); p3 = try reader.readInt16()
        p4 = try reader.readInt16(); p5 = try reader.readInt16(); p6 = try reader.readInt16()
        p7 = try reader.readInt16(); p8 = try reader.readInt16(); p9 = try reader.readInt16()
        try reader.skip(1)  // 0xA0 is reserved
        h1 = try reader.readUInt8()
        var second = ByteReader(block2)
        h2 = try second.readInt16()
        h3 = try second.readUInt8()
        let e4 = try second.readInt8(), e5 = try second.readUInt8(), e6 = try second.readInt8()
        // dig_H4 = 0xE4[11:4] | 0xE5[3:0]; dig_H5 = 0xE6[11:4] | 0xE5[7:4], both signed 12-bit.
        h4 = Int16(e4) << 4 | Int16(e5 & 0x0F)
        h5 = Int16(e6) << 4 | Int16(e5 >> 4)
        h6 = try second.readInt8()
    }

    /// Why trimming read from the chip cannot be real, or nil. dig_T1 and dig_P1 are never zero on a
    /// trimmed part (dig_P1 = 0 makes the pressure formula divide by zero); an all-0x00 or all-0xFF
    /// image is what a failed or too-early NVM read returns.
    static func implausibility(block1: [UInt8], block2: [UInt8], calibration: BME280Calibration) -> String? {
        let bytes = block1 + block2
        if bytes.allSatisfy({ $0 == 0x00 }) { return "every byte reads 0x00" }
        if bytes.allSatisfy({ $0 == 0xFF }) { return "every byte reads 0xFF" }
        if calibration.t1 == 0 { return "dig_T1 is 0" }
        if calibration.p1 == 0 { return "dig_P1 is 0" }
        return nil
    }

    /// Register images for the simulated chip, the inverse of `init(block1:block2:)`.
    public var registerBlocks: (block1: [UInt8], block2: [UInt8]) {
        var writer = ByteWriter()
        writer.append(t1); writer.append(t2); writer.append(t3)
        writer.append(p1)
        for value in [p2, p3, p4, p5, p6, p7, p8, p9] { writer.append(value) }
        writer.append(UInt8(0)); writer.append(h1)
        var second = ByteWriter()
        second.append(h2); second.append(h3)
        second.append(UInt8(truncatingIfNeeded: h4 >> 4))
        second.append(UInt8(truncatingIfNeeded: h4 & 0x0F) | UInt8(truncatingIfNeeded: (h5 & 0x0F) << 4))
        second.append(UInt8(truncatingIfNeeded: h5 >> 4))
        second.append(h6)
        return (writer.bytes, second.bytes)
    }

    /// Returns (temperature in 0.01 °C, t_fine) from the 20-bit ADC value.
    public func compensateTemperature(adc: Int32) -> (centiCelsius: Int32, tFine: Int32) {
        let t1 = Int32(self.t1), t2 = Int32(self.t2), t3 = Int32(self.t3)
        let var1 = (((adc >> 3) &- (t1 << 1)) &* t2) >> 11
        let delta = (adc >> 4) &- t1
        let var2 = (((delta &* delta) >> 12) &* t3) >> 14
        let tFine = var1 &+ var2
        return ((tFine &* 5 &+ 128) >> 8, tFine)
    }

    /// Pressure in Pa as unsigned Q24.8 (64-bit variant); 0 if the calibration would divide by zero.
    public func compensatePressure(adc: Int32, tFine: Int32) -> UInt32 {
        var var1 = Int64(tFine) &- 128_000
        var var2 = var1 &* var1 &* Int64(p6)
        var2 = var2 &+ ((var1 &* Int64(p5)) << 17)
        var2 = var2 &+ (Int64(p4) << 35)
        var1 = ((var1 &* var1 &* Int64(p3)) >> 8) &+ ((var1 &* Int64(p2)) << 12)
        var1 = (((Int64(1) << 47) &+ var1) &* Int64(p1)) >> 33
        guard var1 != 0 else { return 0 }
        var p = 1_048_576 &- Int64(adc)
        p = (((p << 31) &- var2) &* 3125) / var1
        var1 = (Int64(p9) &* (p >> 13) &* (p >> 13)) >> 25
        var2 = (Int64(p8) &* p) >> 19
        p = ((p &+ var1 &+ var2) >> 8) &+ (Int64(p7) << 4)
        return UInt32(truncatingIfNeeded: p)
    }

    /// Relative humidity in %RH as unsigned Q22.10.
    public func compensateHumidity(adc: Int32, tFine: Int32) -> UInt32 {
        var v = tFine &- 76_800
        let a = ((adc << 14) &- (Int32(h4) << 20) &- (Int32(h5) &* v)) &+ 16_384
        let b = (((v &* Int32(h6)) >> 10) &* (((v &* Int32(h3)) >> 11) &+ 32_768)) >> 10
        v = (a >> 15) &* (((b &+ 2_097_152) &* Int32(h2) &+ 8192) >> 14)
        v = v &- (((((v >> 15) &* (v >> 15)) >> 7) &* Int32(h1)) >> 4)
        v = min(max(v, 0), 419_430_400)
        return UInt32(v >> 12)
    }
}

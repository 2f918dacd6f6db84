import BLECore
import Testing
@testable import SIGProfiles

private func bytes(_ value: IEEE11073SFloat) -> [UInt8] {
    var writer = ByteWriter()
    value.write(to: &writer)
    return writer.bytes
}

private func bytes(_ value: IEEE11073Float) -> [UInt8] {
    var writer = ByteWriter()
    value.write(to: &writer)
    return writer.bytes
}

@Suite struct SFloatTests {
    @Test func specialValuesDecode() {
        #expect(IEEE11073SFloat(rawValue: 0x07FF).value == .nan)
        #expect(IEEE11073SFloat(rawValue: 0x0800).value == .nres)
        #expect(IEEE11073SFloat(rawValue: 0x07FE).value == .positiveInfinity)
        #expect(IEEE11073SFloat(rawValue: 0x0802).value == .negativeInfinity)
        #expect(IEEE11073SFloat(rawValue: 0x0801).value == .reserved)
        #expect(IEEE11073SFloat.nan.doubleValue == nil)
        #expect(IEEE11073SFloat.positiveInfinity.doubleValue == .infinity)
        #expect(IEEE11073SFloat.negativeInfinity.doubleValue == -.infinity)
    }

    @Test func specialValuesEncodeFromDouble() throws {
        #expect(try IEEE11073SFloat(Double.nan, fractionDigits: 1).rawValue == 0x07FF)
        #expect(try IEEE11073SFloat(Double.infinity, fractionDigits: 1).rawValue == 0x07FE)
        #expect(try IEEE11073SFloat(-Double.infinity, fractionDigits: 1).rawValue == 0x0802)
        #expect(try IEEE11073SFloat(.nres).rawValue == 0x0800)
        #expect(try IEEE11073SFloat(.reserved).rawValue == 0x0801)
    }

    @Test func encodesWithRequestedPrecision() throws {
        // 366 = 0x16E, exponent −1 = 0xF → 0xF16E.
        #expect(bytes(try IEEE11073SFloat(36.6, fractionDigits: 1)) == [0x6E, 0xF1])
        // −15 = 0xFF1 (12-bit), exponent −1 → 0xFFF1.
        #expect(bytes(try IEEE11073SFloat(-1.5, fractionDigits: 1)) == [0xF1, 0xFF])
        // 0.125 × 100 = 12.5 rounds away from zero to 13 = 0x00D, exponent −2 = 0xE.
        #expect(bytes(try IEEE11073SFloat(0.125, fractionDigits: 2)) == [0x0D, 0xE0])
        #expect(bytes(try IEEE11073SFloat(2045, fractionDigits: 0)) == [0xFD, 0x07])
    }

    @Test func coarsensExponentWhenMantissaOverflows() throws {
        // 2046 would collide with +INFINITY's code: 204.6 → 205 × 10^1 = 0x10CD.
        let value = try IEEE11073SFloat(2046, fractionDigits: 0)
        #expect(value.rawValue == 0x10CD)
        #expect(value.value == .number(mantissa: 205, exponent: 1))
        // 36.6 with 3 digits: 36600 too big, 3660 too big, 366 × 10^−1 fits.
        #expect(try IEEE11073SFloat(36.6, fractionDigits: 3).rawValue == 0xF16E)
    }

    @Test func rejectsUnrepresentableMagnitude() {
        #expect(throws: SIGEncodingError.self) { try IEEE11073SFloat(1e12, fractionDigits: 0) }
        #expect(throws: SIGEncodingError.self) { try IEEE11073SFloat(.number(mantissa: 2046, exponent: 0)) }
        #expect(throws: SIGEncodingError.self) { try IEEE11073SFloat(.number(mantissa: 1, exponent: 8)) }
    }

    @Test func decodesNumbers() {
        #expect(IEEE11073SFloat(rawValue: 0xF16E).doubleValue == 36.6)
        #expect(IEEE11073SFloat(rawValue: 0xFFF1).doubleValue == -1.5)
        #expect(IEEE11073SFloat(rawValue: 0x10CD).doubleValue == 2050)
        #expect(IEEE11073SFloat(rawValue: 0xF16E).description == "36.6")
        // A non-zero exponent with a "special" mantissa is an ordinary number.
        #expect(IEEE11073SFloat(rawValue: 0x17FF).value == .number(mantissa: 2047, exponent: 1))
        #expect(IEEE11073SFloat(rawValue: 0x17FF).rawValue == 0x17FF)
    }
}

@Suite struct FloatTests {
    @Test func specialValuesDecode() {
        #expect(IEEE11073Float(rawValue: 0x007F_FFFF).value == .nan)
        #expect(IEEE11073Float(rawValue: 0x0080_0000).value == .nres)
        #expect(IEEE11073Float(rawValue: 0x007F_FFFE).value == .positiveInfinity)
        #expect(IEEE11073Float(rawValue: 0x0080_0002).value == .negativeInfinity)
        #expect(IEEE11073Float(rawValue: 0x0080_0001).value == .reserved)
        #expect(bytes(IEEE11073Float.nan) == [0xFF, 0xFF, 0x7F, 0x00])
    }

    @Test func bodyTemperatureVector() throws {
        #expect(bytes(try IEEE11073Float(36.6, fractionDigits: 1)) == [0x6E, 0x01, 0x00, 0xFF])
        // 3660 = 0x000E4C, exponent −2 = 0xFE.
        #expect(bytes(try IEEE11073Float(36.6, fractionDigits: 2)) == [0x4C, 0x0E, 0x00, 0xFE])
        // 986 = 0x0003DA.
        #expect(bytes(try IEEE11073Float(98.6, fractionDigits: 1)) == [0xDA, 0x03, 0x00, 0xFF])
        // −400 = 0xFFFE70 (24-bit).
        #expect(bytes(try IEEE11073Float(-40, fractionDigits: 1)) == [0x70, 0xFE, 0xFF, 0xFF])
    }

    @Test func decodesNumbers() {
        #expect(IEEE11073Float(rawValue: 0xFF00_016E).doubleValue == 36.6)
        #expect(IEEE11073Float(rawValue: 0xFFFF_FE70).doubleValue == -40)
        #expect(IEEE11073Float(rawValue: 0x0200_0003).doubleValue == 300)
        #expect(IEEE11073Float(rawValue: 0xFD00_0005).description == "0.005")
    }

    @Test func roundingAndCoarsening() throws {
        // 8388605 is the largest finite mantissa; 8388606 becomes 838861 × 10^1.
        #expect(try IEEE11073Float(8_388_605, fractionDigits: 0).rawValue == 0x007F_FFFD)
        #expect(try IEEE11073Float(8_388_606, fractionDigits: 0).value == .number(mantissa: 838_861, exponent: 1))
        #expect(try IEEE11073Float(-0.05, fractionDigits: 1).value == .number(mantissa: -1, exponent: -1))
        #expect(throws: SIGEncodingError.self) { try IEEE11073Float(1e200, fractionDigits: 0) }
    }
}

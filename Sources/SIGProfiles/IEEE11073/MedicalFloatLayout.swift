/// The bit layout shared by SFLOAT (4-bit exponent, 12-bit mantissa) and FLOAT (8-bit exponent,
/// 24-bit mantissa): both are two's-complement fields, and the special values are the five mantissa
/// codes around the mantissa's sign boundary with exponent 0.
struct MedicalFloatLayout: Sendable {
    let name: String
    let exponentBits: Int
    let mantissaBits: Int

    static let sfloat = MedicalFloatLayout(name: "SFLOAT", exponentBits: 4, mantissaBits: 12)
    static let float = MedicalFloatLayout(name: "FLOAT", exponentBits: 8, mantissaBits: 24)

    var mantissaMask: UInt32 { (1 << UInt32(mantissaBits)) - 1 }
    var exponentMask: UInt32 { (1 << UInt32(exponentBits)) - 1 }
    /// 0x07FF / 0x007FFFFF.
    var nanCode: UInt32 { (1 << UInt32(mantissaBits - 1)) - 1 }
    /// 0x0800 / 0x00800000.
    var nresCode: UInt32 { 1 << UInt32(mantissaBits - 1) }
    var positiveInfinityCode: UInt32 { nanCode - 1 }
    var reservedCode: UInt32 { nresCode + 1 }
    var negativeInfinityCode: UInt32 { nresCode + 2 }
    /// Largest finite mantissa magnitude: the codes above it are the specials (2045 / 8388605).
    var maxMantissa: Int64 { Int64(nanCode) - 2 }
    var minExponent: Int { -(1 << (exponentBits - 1)) }
    var maxExponent: Int { (1 << (exponentBits - 1)) - 1 }

    func decode(_ raw: UInt32) -> MedicalFloatValue {
        let mantissaField = raw & mantissaMask
        let exponentField = (raw >> UInt32(mantissaBits)) & exponentMask
        if exponentField == 0 {
            switch mantissaField {
            case nanCode: return .nan
            case nresCode: return .nres
            case positiveInfinityCode: return .positiveInfinity
            case negativeInfinityCode: return .negativeInfinity
            case reservedCode: return .reserved
            default: break
            }
        }
        return .number(mantissa: signExtend(mantissaField, bits: mantissaBits),
                       exponent: Int8(truncatingIfNeeded: signExtend(exponentField, bits: exponentBits)))
    }

    func encode(_ value: MedicalFloatValue) throws(SIGEncodingError) -> UInt32 {
        switch value {
        case .nan: return nanCode
        case .nres: return nresCode
        case .positiveInfinity: return positiveInfinityCode
        case .negativeInfinity: return negativeInfinityCode
        case .reserved: return reservedCode
        case let .number(mantissa, exponent):
            try check(mantissa: Int64(mantissa), exponent: Int(exponent))
            let exponentField = UInt32(bitPattern: Int32(exponent)) & exponentMask
            let mantissaField = UInt32(bitPattern: mantissa) & mantissaMask
            return exponentField << UInt32(mantissaBits) | mantissaField
        }
    }

    func check(mantissa: Int64, exponent: Int) throws(SIGEncodingError) {
        guard (-maxMantissa...maxMantissa).contains(mantissa) else {
            throw .notRepresentable(value: "mantissa \(mantissa)", format: name,
                                    reason: "finite mantissas lie in ±\(maxMantissa); larger codes are special values")
        }
        guard (minExponent...maxExponent).contains(exponent) else {
            throw .notRepresentable(value: "exponent \(exponent)", format: name,
                                    reason: "exponents lie in \(minExponent)...\(maxExponent)")
        }
    }

    /// Picks the finest exponent not finer than `10^-fractionDigits` whose rounded mantissa fits, so the
    /// requested precision is kept whenever the magnitude allows and gracefully reduced when it does not.
    func value(for number: Double, fractionDigits: Int) throws(SIGEncodingError) -> MedicalFloatValue {
        if number.isNaN { return .nan }
        if number == .infinity { return .positiveInfinity }
        if number == -.infinity { return .negativeInfinity }
        var exponent = min(max(-fractionDigits, minExponent), maxExponent)
        while exponent <= maxExponent {
            let scale = pow10(Int(exponent.magnitude))
            let scaled = exponent < 0 ? number * scale : number / scale
            let rounded = scaled.rounded(.toNearestOrAwayFromZero)
            if rounded.magnitude <= Double(maxMantissa) {
                let mantissa = Int64(rounded)
                return .number(mantissa: Int32(mantissa), exponent: Int8(exponent))
            }
            exponent += 1
        }
        throw .notRepresentable(value: "\(number)", format: name,
                                reason: "magnitude exceeds \(maxMantissa)×10^\(maxExponent)")
    }

    private func signExtend(_ field: UInt32, bits: Int) -> Int32 {
        let shift = UInt32(32 - bits)
        return Int32(bitPattern: field << shift) >> Int32(shift)
    }
}

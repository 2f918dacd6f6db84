import Synchronization

/// BME280 model: byte registers with auto-increment, chip ID, calibration NVM, forced-mode
/// measurement that sets status.measuring for the datasheet time and then latches new ADC values.
public final class SimulatedBME280: SimulatedI2CDevice {
    private struct State {
        var registers = [UInt8](repeating: 0, count: 256)
        var pointer: UInt8 = 0
        var measuringUntil: UInt64 = 0
        /// im_update: the NVM trimming copy after power-up (datasheet table 1: 2 ms start-up).
        var copyingNVMUntil: UInt64 = 0
        var adc: (t: Int32, p: Int32, h: Int32)
        var pending: (t: Int32, p: Int32, h: Int32)?
        var skipPressure = false
        var skipHumidity = false
    }
    private let state: Mutex<State>
    private let clock: any SensorClock
    public let calibration: BME280Calibration

    /// The BMP280 datasheet's worked-example trimming, extended with typical humidity values.
    public static let exampleCalibration = BME280Calibration(
        t1: 27504, t2: 26435, t3: -1000,
        p1: 36477, p2: -10685, p3: 3024, p4: 2855, p5: 140, p6: -7, p7: 15500, p8: -14600, p9: 6000,
        h1: 75, h2: 362, h3: 0, h4: 324, h5: 50, h6: 30)

    public init(calibration: BME280Calibration = SimulatedBME280.exampleCalibration, chipID: UInt8 = BME280.chipID,
                clock: any SensorClock) {
        self.calibration = calibration
        self.clock = clock
        var initial = State(adc: (0x80000, 0x80000, 0x8000))
        initial.registers[0xD0] = chipID
        let blocks = calibration.registerBlocks
        for (index, byte) in blocks.block1.enumerated() { initial.registers[0x88 + index] = byte }
        for (index, byte) in blocks.block2.enumerated() { initial.registers[0xE1 + index] = byte }
        Self.latch(&initial.registers, adc: initial.adc)
        initial.copyingNVMUntil = clock.nowNanoseconds().saturatingAdd(UInt64(BME280.startUpMilliseconds * 1e6))
        initial.registers[0xF3] = BME280.statusUpdatingNVM
        state = Mutex(initial)
    }

    /// Sets the raw ADC outputs the next forced measurement produces.
    public func setADC(temperature: Int32, pressure: Int32, humidity: Int32) {
        state.withLock { $0.adc = (temperature, pressure, humidity) }
    }

    /// Sets the raw ADC outputs from the 8 data registers 0xF7…0xFE as the datasheet lays them out
    /// (press_msb, press_lsb, press_xlsb[7:4], temp_…, hum_msb, hum_lsb); other lengths are ignored.
    public func setDataRegisters(_ bytes: [UInt8]) {
        guard bytes.count == 8 else { return }
        func twentyBit(_ at: Int) -> Int32 { Int32(bytes[at]) << 12 | Int32(bytes[at + 1]) << 4 | Int32(bytes[at + 2]) >> 4 }
        setADC(temperature: twentyBit(3), pressure: twentyBit(0), humidity: Int32(bytes[6]) << 8 | Int32(bytes[7]))
    }

    /// The config register (0xF5): t_sb[7:5], filter[4:2], spi3w_en[0].
    public var configRegister: UInt8 { state.withLock { $0.registers[0xF5] } }

    /// Models another program having left a setting in the config register.
    public func setConfigRegister(_ value: UInt8) { state.withLock { $0.registers[0xF5] = value } }

    /// Fault injection: the NVM copy (im_update) runs until `milliseconds` from now, as after a reset.
    public func copyNVM(forMilliseconds milliseconds: Double) {
        let until = clock.nowNanoseconds().saturatingAdd(UInt64(saturating: milliseconds * 1e6))
        state.withLock { $0.copyingNVMUntil = until }
    }

    /// Loads raw register bytes from `start` on, e.g. a datasheet's calibration words.
    public func setRegisters(_ bytes: [UInt8], at start: UInt8) {
        state.withLock { state in
            for (offset, byte) in bytes.enumerated() where Int(start) + offset < 256 { state.registers[Int(start) + offset] = byte }
        }
    }

    /// Fault injection: every trimming register reads `byte`, as a blank or unreadable NVM does.
    public func fillCalibration(with byte: UInt8) {
        state.withLock { state in
            for register in Self.calibrationRegisters { state.registers[register] = byte }
        }
    }

    static let calibrationRegisters = Array(0x88...0xA1) + Array(0xE1...0xE7)

    /// Fault injection: the next measurements leave these channels at their reset values
    /// (0x80000 / 0x8000), as when their oversampling setting was lost.
    public func skipConversions(pressure: Bool, humidity: Bool) {
        state.withLock { $0.skipPressure = pressure; $0.skipHumidity = humidity }
    }

    /// Finds ADC values whose compensation gives the requested physical values (binary search on
    /// the monotonic compensation curves).
    public func setEnvironment(celsius: Double, pascals: Double, relativeHumidity: Double) {
        let cal = calibration
        let adcT = Self.search(bits: 20, increasing: true, target: celsius * 100) { Double(cal.compensateTemperature(adc: $0).centiCelsius) }
        let tFine = cal.compensateTemperature(adc: adcT).tFine
        let adcP = Self.search(bits: 20, increasing: false, target: pascals * 256) { Double(cal.compensatePressure(adc: $0, tFine: tFine)) }
        let adcH = Self.search(bits: 16, increasing: true, target: relativeHumidity * 1024) { Double(cal.compensateHumidity(adc: $0, tFine: tFine)) }
        setADC(temperature: adcT, pressure: adcP, humidity: adcH)
    }

    private static func search(bits: Int, increasing: Bool, target: Double, _ f: (Int32) -> Double) -> Int32 {
        var low: Int32 = 0, high: Int32 = (1 << bits) - 1
        while low < high {
            let mid = (low + high) / 2
            let below = increasing ? f(mid) < target : f(mid) > target
            if below { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func latch(_ registers: inout [UInt8], adc: (t: Int32, p: Int32, h: Int32)) {
        registers[0xF7] = UInt8(truncatingIfNeeded: adc.p >> 12)
        registers[0xF8] = UInt8(truncatingIfNeeded: adc.p >> 4)
        registers[0xF9] = UInt8(truncatingIfNeeded: adc.p << 4)
        registers[0xFA] = UInt8(truncatingIfNeeded: adc.t >> 12)
        registers[0xFB] = UInt8(truncatingIfNeeded: adc.t >> 4)
        registers[0xFC] = UInt8(truncatingIfNeeded: adc.t << 4)
        registers[0xFD] = UInt8(truncatingIfNeeded: adc.h >> 8)
        registers[0xFE] = UInt8(truncatingIfNeeded: adc.h)
    }

    private func update(_ state: inout State, now: UInt64) {
        if let pending = state.pending, now >= state.measuringUntil {
            Self.latch(&state.registers, adc: pending)
            state.pending = nil
            state.registers[0xF4] &= 0xFC  // back to sleep mode after a forced measurement
        }
        state.registers[0xF3] = (now < state.measuringUntil ? BME280.statusMeasuring : 0)
            | (now < state.copyingNVMUntil ? BME280.statusUpdatingNVM : 0)
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        state.withLock { state in
            update(&state, now: now)
            guard let first = bytes.first else { return }
            state.pointer = first
            // Writes are register/value pairs.
            var index = 0
            while index + 2 <= bytes.count {
                let register = index == 0 ? bytes[0] : bytes[index]
                let value = bytes[index + 1]
                index += 2
                switch register {
                case 0xE0 where value == 0xB6:
                    state.registers[0xF2] = 0; state.registers[0xF4] = 0; state.registers[0xF5] = 0
                case 0xF2, 0xF5:
                    state.registers[Int(register)] = value
                case 0xF4:
                    state.registers[0xF4] = value
                    if value & 0x03 == 0x01 || value & 0x03 == 0x02 {
                        let factor: (UInt8) -> Double = { code in code == 0 ? 0 : Double(1 << min(Int(code) - 1, 4)) }
                        let osrsT = factor(value >> 5), osrsP = factor((value >> 2) & 0x07), osrsH = factor(state.registers[0xF2] & 0x07)
                        // Typical time (datasheet 9.1): 1 + 2*T + (2*P + 0.5) + (2*H + 0.5) ms.
                        var ms = 1 + 2 * osrsT
                        if osrsP > 0 { ms += 2 * osrsP + 0.5 }
                        if osrsH > 0 { ms += 2 * osrsH + 0.5 }
                        state.measuringUntil = now + UInt64(ms * 1e6)
                        state.pending = (osrsT > 0 ? state.adc.t : 0x80000,
                                         osrsP > 0 && !state.skipPressure ? state.adc.p : 0x80000,
                                         osrsH > 0 && !state.skipHumidity ? state.adc.h : 0x8000)
                        state.registers[0xF3] = BME280.statusMeasuring
                    }
                default:
                    break
                }
            }
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return state.withLock { state in
            update(&state, now: now)
            var out: [UInt8] = []
            let copying = now < state.copyingNVMUntil
            for _ in 0..<count {
                // Until the NVM copy finishes the trimming registers hold nothing yet.
                let blank = copying && Self.calibrationRegisters.contains(Int(state.pointer))
                out.append(blank ? 0 : state.registers[Int(state.pointer)])
                state.pointer &+= 1
            }
            return out
        }
    }

    public func stop() {}
}

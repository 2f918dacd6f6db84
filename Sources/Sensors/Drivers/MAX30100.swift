/// Maxim MAX30100 pulse oximeter / heart-rate front end (0x57), the chip on most cheap pulse boards.
/// Its register map differs from the MAX30102's: a 16-sample FIFO of 16-bit IR/red pairs, mode at
/// 0x06, SpO2 configuration at 0x07 and both LED currents in one register at 0x09.
public final class MAX30100: Sendable {
    /// Datasheet Table 1 (register maps).
    public enum Register: UInt8 {
        case interruptStatus = 0x00
        case interruptEnable = 0x01
        case fifoWritePointer = 0x02
        case overflowCounter = 0x03
        case fifoReadPointer = 0x04
        case fifoData = 0x05
        case modeConfig = 0x06
        case spO2Config = 0x07
        case ledConfig = 0x09
        case revisionID = 0xFE
        case partID = 0xFF
    }

    public static let partID: UInt8 = 0x11
    static let fifoDepth = 16
    static let bytesPerSample = 4
    static let powerReady: UInt8 = 0x01
    static let resetBit: UInt8 = 0x40
    /// MODE[2:0] = 011: SpO2 mode, red and IR LEDs (heart-rate mode would light the IR LED only).
    static let spO2Mode: UInt8 = 0x03
    /// SPO2_HI_RES_EN with LED_PW = 11: 1600 µs pulses, 16-bit ADC.
    static let highResolution1600us: UInt8 = 0x43

    /// SPO2_SR[2:0] sample rates in Hz (datasheet Table 5).
    public static let sampleRates: [Int] = [50, 100, 167, 200, 400, 600, 800, 1000]
    /// Datasheet Table 8 (SpO2 mode allowed settings): with 1600 µs pulses only 50 and 100 samples/s fit.
    public static let allowedSampleRates: [Int] = [50, 100]
    /// Datasheet Table 6 (LED current control): the 4-bit RED_PA / IR_PA codes in mA.
    public static let ledCurrents: [Double] = [0, 4.4, 7.6, 11.0, 14.2, 17.4, 20.8, 24.0, 27.1, 30.6, 33.8, 37.0, 40.2, 43.6, 46.8, 50.0]
    /// With 16-bit samples the finger threshold of the MAX3010x's 18-bit samples is a quarter.
    public static let fingerThreshold = 7_500.0

    public struct Configuration: Sendable, Equatable {
        public var sampleRate: Int
        /// LED drive in mA, 0...50; the nearest of the chip's 16 steps is used.
        public var redMilliamps: Double
        public var irMilliamps: Double

        public init(sampleRate: Int = 100, redMilliamps: Double = 11.0, irMilliamps: Double = 11.0) {
            self.sampleRate = sampleRate
            self.redMilliamps = redMilliamps
            self.irMilliamps = irMilliamps
        }

        /// The code of the nearest current step; NaN and negative give 0 (LED off).
        static func currentCode(_ milliamps: Double) -> UInt8 {
            var best = 0
            for (index, step) in ledCurrents.enumerated() where abs(step - milliamps) < abs(ledCurrents[best] - milliamps) { best = index }
            return UInt8(best)
        }
    }

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock
    public let configuration: Configuration

    /// The chip's only address.
    public static let defaultAddress: UInt8 = 0x57

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, configuration: Configuration = Configuration(),
                clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.configuration = configuration
        self.clock = clock
    }

    /// Resets, then programs SpO2 mode, the sample rate with 1600 µs pulses and both LED currents.
    public func configure() throws(SensorError) {
        guard let rateCode = Self.sampleRates.firstIndex(of: configuration.sampleRate),
              Self.allowedSampleRates.contains(configuration.sampleRate) else {
            throw .unsupportedConfiguration(sensor: "MAX30100",
                                            reason: "sample rate \(configuration.sampleRate) Hz: with 1600 µs LED pulses (16-bit) use one of \(Self.allowedSampleRates)")
        }
        do {
            let part = try bus.readByteData(address: address, command: Register.partID.rawValue)
            guard part == Self.partID else {
                let hint = part == MAX3010x.partID ? " (a MAX30102/MAX30101: use driver max30102)" : ""
                throw SensorError.wrongChip(sensor: "MAX30100", expected: "part ID 0x11", found: "part ID \(part.i2cHex)\(hint)")
            }
            try bus.writeByteData(address: address, command: Register.modeConfig.rawValue, value: Self.resetBit)
            // The reset bit self-clears within a millisecond.
            clock.sleep(milliseconds: 1)
            let mode = try bus.readByteData(address: address, command: Register.modeConfig.rawValue)
            guard mode & Self.resetBit == 0 else { throw SensorError.conversionTimeout(sensor: "MAX30100", waitedMilliseconds: 1) }
            try bus.writeByteData(address: address, command: Register.spO2Config.rawValue,
                                  value: Self.highResolution1600us | UInt8(rateCode) << 2)
            let led = Configuration.currentCode(configuration.redMilliamps) << 4 | Configuration.currentCode(configuration.irMilliamps)
            try bus.writeByteData(address: address, command: Register.ledConfig.rawValue, value: led)
            for register in [Register.fifoWritePointer, .overflowCounter, .fifoReadPointer] {
                try bus.writeByteData(address: address, command: register.rawValue, value: 0)
            }
            // Reading status clears PWR_RDY, so a later PWR_RDY means the chip reset behind our back.
            _ = try bus.readByteData(address: address, command: Register.interruptStatus.rawValue)
            try bus.writeByteData(address: address, command: Register.modeConfig.rawValue, value: Self.spO2Mode)
        } catch let error as SensorError {
            throw error
        } catch let error as SensorBusError {
            throw .bus(error)
        } catch {
            throw .invalidData(sensor: "MAX30100", reason: "\(error)")
        }
    }

    /// Drains every unread FIFO sample (at most 16); counts in `ir` and `red` are 16-bit.
    public func readFIFO() throws(SensorError) -> MAX3010x.FIFORead {
        do {
            let status = try bus.readByteData(address: address, command: Register.interruptStatus.rawValue)
            if status & Self.powerReady != 0 { throw SensorError.deviceReset(sensor: "MAX30100") }
            let pointers = try bus.readI2CBlockData(address: address, command: Register.fifoWritePointer.rawValue, count: 3)
            guard pointers.count == 3 else { throw SensorError.invalidData(sensor: "MAX30100", reason: "short pointer read") }
            let write = Int(pointers[0] & 0x0F), overflow = Int(pointers[1] & 0x0F), read = Int(pointers[2] & 0x0F)
            var available = (write - read) & 0x0F
            if available == 0 && overflow > 0 { available = Self.fifoDepth }
            guard available > 0 else { return MAX3010x.FIFORead(samples: [], lostSamples: overflow) }
            // FIFO_DATA does not auto-increment: every byte read pops the FIFO.
            let bytes = try bus.writeRead(address: address, write: [Register.fifoData.rawValue], readCount: available * Self.bytesPerSample)
            guard bytes.count == available * Self.bytesPerSample else {
                throw SensorError.invalidData(sensor: "MAX30100", reason: "short FIFO read")
            }
            return MAX3010x.FIFORead(samples: Self.samples(bytes), lostSamples: overflow)
        } catch let error as SensorError {
            throw error
        } catch let error as SensorBusError {
            throw .bus(error)
        } catch {
            throw .invalidData(sensor: "MAX30100", reason: "\(error)")
        }
    }

    /// Datasheet "FIFO Data": each sample is IR[15:8], IR[7:0], RED[15:8], RED[7:0]; a partial
    /// trailing sample is dropped.
    static func samples(_ bytes: [UInt8]) -> [MAX3010x.Sample] {
        stride(from: 0, to: bytes.count - bytesPerSample + 1, by: bytesPerSample).map { base in
            MAX3010x.Sample(red: UInt32(bytes[base + 2]) << 8 | UInt32(bytes[base + 3]),
                            ir: UInt32(bytes[base]) << 8 | UInt32(bytes[base + 1]))
        }
    }
}

extension MAX30100: PPGFrontEnd {
    public var partName: String { "MAX30100" }
    public var sampleRate: Int { configuration.sampleRate }
    /// The driver always runs the chip in SpO2 mode (both LEDs).
    public var samplesRedAndInfrared: Bool { true }
    /// 16-bit samples at the 1600 µs pulse width the driver configures.
    public var adcFullScale: Double { 65_535 }
}

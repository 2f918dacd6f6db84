/// Maxim MAX30101/MAX30102 pulse oximeter / heart-rate front end (0x57).
public final class MAX3010x: Sendable {
    public enum Register: UInt8 {
        case interruptStatus1 = 0x00
        case interruptStatus2 = 0x01
        case interruptEnable1 = 0x02
        case interruptEnable2 = 0x03
        case fifoWritePointer = 0x04
        case overflowCounter = 0x05
        case fifoReadPointer = 0x06
        case fifoData = 0x07
        case fifoConfig = 0x08
        case modeConfig = 0x09
        case spO2Config = 0x0A
        case led1PulseAmplitude = 0x0C
        case led2PulseAmplitude = 0x0D
        case led3PulseAmplitude = 0x0E
        case revisionID = 0xFE
        case partID = 0xFF
    }

    public static let partID: UInt8 = 0x15
    static let fifoDepth = 32
    static let powerReady: UInt8 = 0x01
    /// Interrupt status 1 bit 5 (ALC_OVF): ambient light cancellation hit its limit, so ambient light
    /// is in the samples.
    static let ambientLightOverflow: UInt8 = 0x20
    static let resetBit: UInt8 = 0x40

    public enum Variant: String, Sendable {
        case max30101 = "MAX30101"
        case max30102 = "MAX30102"
    }

    /// MODE[2:0]: heart-rate uses the red LED only, SpO2 red and IR.
    public enum Mode: UInt8, Sendable {
        case heartRate = 0x02
        case spO2 = 0x03

        var bytesPerSample: Int { self == .heartRate ? 3 : 6 }
    }

    /// SPO2_SR[4:2] sample rates in Hz.
    public static let sampleRates: [Int] = [50, 100, 200, 400, 800, 1000, 1600, 3200]
    /// The driver always uses 411 µs LED pulses (18-bit ADC). The datasheet's allowed-settings tables
    /// stop at 400 samples/s for that pulse width in SpO2 mode; higher rates leave no time between
    /// pulses and the chip silently misbehaves, so they are rejected (also in heart-rate mode, to stay
    /// on the safe side of the tables).
    public static let maximumSampleRate = 400

    public struct Configuration: Sendable, Equatable {
        public var mode: Mode
        public var sampleRate: Int
        /// LED drive in mA, 0...51 in 0.2 mA steps.
        public var redMilliamps: Double
        public var irMilliamps: Double

        public init(mode: Mode = .spO2, sampleRate: Int = 100, redMilliamps: Double = 7.0, irMilliamps: Double = 7.0) {
            self.mode = mode
            self.sampleRate = sampleRate
            self.redMilliamps = redMilliamps
            self.irMilliamps = irMilliamps
        }

        static func amplitudeCode(_ milliamps: Double) -> UInt8 {
            UInt8(saturating: (milliamps / 0.2).rounded())
        }
    }

    /// One FIFO sample: 18-bit counts; `ir` is nil in heart-rate mode.
    public struct Sample: Sendable, Equatable {
        public var red: UInt32
        public var ir: UInt32?
        public init(red: UInt32, ir: UInt32?) {
            self.red = red
            self.ir = ir
        }
    }

    public struct FIFORead: Sendable, Equatable {
        public var samples: [Sample]
        /// Samples the chip dropped because the FIFO was full (OVF_COUNTER, saturating at 31). With
        /// rollover off they are the ones after `samples`: a gap in time before the next read's samples.
        public var lostSamples: Int
        /// ALC_OVF was set: ambient light reached the photodiode beyond what the chip can cancel.
        public var ambientLightOverflow = false
    }

    public let bus: any I2CBus
    public let address: UInt8
    public let variant: Variant
    public let clock: any SensorClock
    public let configuration: Configuration

    /// The 7-bit address the chip answers on when its address pins are left at their default.
    public static let defaultAddress: UInt8 = 0x57

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, variant: Variant = .max30102,
                configuration: Configuration = Configuration(), clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.variant = variant
        self.configuration = configuration
        self.clock = clock
    }

    /// Resets, then programs FIFO, mode, sample rate (18-bit, 411 µs pulses, 16384 nA range) and LED currents.
    public func configure() throws(SensorError) {
        guard let rateCode = Self.sampleRates.firstIndex(of: configuration.sampleRate) else {
            throw .unsupportedConfiguration(sensor: variant.rawValue,
                                            reason: "sample rate \(configuration.sampleRate) Hz is not one of \(Self.sampleRates)")
        }
        guard configuration.sampleRate <= Self.maximumSampleRate else {
            throw .unsupportedConfiguration(
                sensor: variant.rawValue,
                reason: "\(configuration.sampleRate) samples/s is not allowed with 411 µs LED pulses (18-bit); use at most \(Self.maximumSampleRate)")
        }
        do {
            let part = try bus.readByteData(address: address, command: Register.partID.rawValue)
            guard part == Self.partID else {
                throw SensorError.wrongChip(sensor: variant.rawValue, expected: "part ID 0x15",
                                            found: "part ID \(part.i2cHex)" + (part == MAX30100.partID ? " (a MAX30100: use driver max30100)" : ""))
            }
            try bus.writeByteData(address: address, command: Register.modeConfig.rawValue, value: Self.resetBit)
            // The reset bit self-clears within a millisecond.
            clock.sleep(milliseconds: 1)
            let mode = try bus.readByteData(address: address, command: Register.modeConfig.rawValue)
            guard mode & Self.resetBit == 0 else {
                throw SensorError.conversionTimeout(sensor: variant.rawValue, waitedMilliseconds: 1)
            }
            // No sample averaging, rollover off (so overflow is counted, not silently overwritten), A_FULL = 15.
            try bus.writeByteData(address: address, command: Register.fifoConfig.rawValue, value: 0x0F)
            try bus.writeByteData(address: address, command: Register.spO2Config.rawValue, value: 0x60 | UInt8(rateCode) << 2 | 0x03)
            try bus.writeByteData(address: address, command: Register.led1PulseAmplitude.rawValue,
                                  value: Configuration.amplitudeCode(configuration.redMilliamps))
            try bus.writeByteData(address: address, command: Register.led2PulseAmplitude.rawValue,
                                  value: Configuration.amplitudeCode(configuration.mode == .spO2 ? configuration.irMilliamps : 0))
            for register in [Register.fifoWritePointer, .overflowCounter, .fifoReadPointer] {
                try bus.writeByteData(address: address, command: register.rawValue, value: 0)
            }
            // Reading status clears PWR_RDY, so a later PWR_RDY means the chip reset behind our back.
            _ = try bus.readByteData(address: address, command: Register.interruptStatus1.rawValue)
            try bus.writeByteData(address: address, command: Register.modeConfig.rawValue, value: configuration.mode.rawValue)
        } catch let error as SensorError {
            throw error
        } catch let error as SensorBusError {
            throw .bus(error)
        } catch {
            throw .invalidData(sensor: variant.rawValue, reason: "\(error)")
        }
    }

    /// Drains every unread FIFO sample.
    public func readFIFO() throws(SensorError) -> FIFORead {
        do {
            let status = try bus.readByteData(address: address, command: Register.interruptStatus1.rawValue)
            if status & Self.powerReady != 0 { throw SensorError.deviceReset(sensor: variant.rawValue) }
            let pointers = try bus.readI2CBlockData(address: address, command: Register.fifoWritePointer.rawValue, count: 3)
            guard pointers.count == 3 else { throw SensorError.invalidData(sensor: variant.rawValue, reason: "short pointer read") }
            let write = Int(pointers[0] & 0x1F), overflow = Int(pointers[1] & 0x1F), read = Int(pointers[2] & 0x1F)
            var available = (write - read) & 0x1F
            if available == 0 && overflow > 0 { available = Self.fifoDepth }
            let ambient = status & Self.ambientLightOverflow != 0
            guard available > 0 else { return FIFORead(samples: [], lostSamples: overflow, ambientLightOverflow: ambient) }
            let size = configuration.mode.bytesPerSample
            // FIFO_DATA does not auto-increment: every byte read pops the FIFO.
            let bytes = try bus.writeRead(address: address, write: [Register.fifoData.rawValue], readCount: available * size)
            guard bytes.count == available * size else {
                throw SensorError.invalidData(sensor: variant.rawValue, reason: "short FIFO read")
            }
            var samples: [Sample] = []
            samples.reserveCapacity(available)
            for index in 0..<available {
                let base = index * size
                let red = Self.counts(bytes[base], bytes[base + 1], bytes[base + 2])
                let ir = size == 6 ? Self.counts(bytes[base + 3], bytes[base + 4], bytes[base + 5]) : nil
                samples.append(Sample(red: red, ir: ir))
            }
            return FIFORead(samples: samples, lostSamples: overflow, ambientLightOverflow: ambient)
        } catch let error as SensorError {
            throw error
        } catch let error as SensorBusError {
            throw .bus(error)
        } catch {
            throw .invalidData(sensor: variant.rawValue, reason: "\(error)")
        }
    }

    /// Three bytes MSB first; only bits 17...0 are data.
    static func counts(_ high: UInt8, _ middle: UInt8, _ low: UInt8) -> UInt32 {
        (UInt32(high) << 16 | UInt32(middle) << 8 | UInt32(low)) & 0x3FFFF
    }
}

import Synchronization

/// How a simulated device refuses a byte: at the address (nobody home / busy) or at a data byte.
public enum SimulatedI2CNack: Error, Equatable, Sendable {
    case address
    case data
}

/// A register-level chip model. The bus turns every SMBus call into the same phases the wire
/// carries: an address+W phase with bytes, optional repeated start with an address+R phase, stop.
public protocol SimulatedI2CDevice: AnyObject, Sendable {
    /// Bytes the master wrote after address+W (may be empty for a quick write).
    func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack)
    /// The master clocks `count` bytes out after address+R; consecutive calls in one read phase continue.
    func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8]
    /// Stop condition: the transaction ended.
    func stop()
}

/// Bus-level faults the simulated adapter can inject.
public enum SimulatedI2CFault: Sendable, Equatable {
    /// The device at the address stops acknowledging (ENXIO on Linux).
    case nack
    /// Data bytes are refused after the address was acknowledged (EREMOTEIO).
    case dataNack
    /// Glitches on the lines (EIO).
    case ioError
    /// A device holds SDA low: every transfer on the bus times out (ETIMEDOUT).
    case stuckBus
    /// A kernel driver has bound the address, so i2c-dev refuses it (EBUSY from I2C_SLAVE).
    case claimedByKernel
}

/// An adapter hosting several simulated chips by 7-bit address, producing the same
/// `SensorBusError`s as `LinuxI2CBus`.
public final class SimulatedI2CBus: I2CBus {
    public let busNumber: Int

    private struct State {
        var devices: [UInt8: any SimulatedI2CDevice] = [:]
        var faults: [UInt8: SimulatedI2CFault] = [:]
        var stuck = false
        var transactionCount = 0
    }

    private let state = Mutex(State())

    public init(busNumber: Int = 1) {
        self.busNumber = busNumber
    }

    public func attach(_ device: any SimulatedI2CDevice, at address: UInt8) {
        state.withLock { $0.devices[address] = device }
    }

    /// Removes the chip as if its cable were pulled: it no longer acknowledges.
    public func unplug(address: UInt8) {
        _ = state.withLock { $0.devices.removeValue(forKey: address) }
    }

    public func inject(_ fault: SimulatedI2CFault, at address: UInt8) {
        state.withLock { state in
            if fault == .stuckBus { state.stuck = true } else { state.faults[address] = fault }
        }
    }

    public func clearFaults() {
        state.withLock { state in
            state.faults.removeAll()
            state.stuck = false
        }
    }

    /// Number of completed or attempted transactions, for tests asserting no bus traffic happened.
    public var transactionCount: Int { state.withLock { $0.transactionCount } }

    private enum Phase {
        case write([UInt8])
        case read(Int)
        /// SMBus block read: one read phase whose first byte tells how many follow.
        case blockRead
    }

    /// Runs one transaction (phases joined by repeated starts, then stop) atomically.
    private func run(address: UInt8, _ phases: [Phase]) throws(SensorBusError) -> [UInt8] {
        let bus = busNumber
        let outcome: Result<[UInt8], SensorBusError> = state.withLock { state in
            state.transactionCount += 1
            if state.stuck { return .failure(.timeout(bus: bus, address: address)) }
            guard let device = state.devices[address] else { return .failure(.noDevice(bus: bus, address: address)) }
            switch state.faults[address] {
            case .nack: return .failure(.noDevice(bus: bus, address: address))
            case .ioError: return .failure(.ioError(bus: bus, address: address))
            case .claimedByKernel: return .failure(.addressClaimed(bus: bus, address: address))
            case .dataNack:
                if case .write(let bytes)? = phases.first, !bytes.isEmpty { return .failure(.remoteIO(bus: bus, address: address)) }
            case .stuckBus, nil: break
            }
            var received: [UInt8] = []
            defer { device.stop() }
            do throws(SimulatedI2CNack) {
                for phase in phases {
                    switch phase {
                    case let .write(bytes): try device.receive(bytes)
                    case let .read(count): received += try device.transmit(count: count)
                    case .blockRead:
                        let count = Int(try device.transmit(count: 1).first ?? 0)
                        guard (1...SMBusLimits.maxBlockLength).contains(count) else {
                            return .failure(.invalidRequest(bus: bus, address: address,
                                                            reason: "device sent block count \(count), SMBus allows 1...32"))
                        }
                        received += try device.transmit(count: count)
                    }
                }
            } catch {
                return .failure(error == .address ? .noDevice(bus: bus, address: address) : .remoteIO(bus: bus, address: address))
            }
            return .success(received)
        }
        return try outcome.get()
    }

    public func readByte(address: UInt8) throws(SensorBusError) -> UInt8 {
        let bytes = try run(address: address, [.read(1)])
        return bytes.first ?? 0xFF
    }

    public func writeByte(address: UInt8, value: UInt8) throws(SensorBusError) {
        _ = try run(address: address, [.write([value])])
    }

    public func readByteData(address: UInt8, command: UInt8) throws(SensorBusError) -> UInt8 {
        let bytes = try run(address: address, [.write([command]), .read(1)])
        return bytes.first ?? 0xFF
    }

    public func writeByteData(address: UInt8, command: UInt8, value: UInt8) throws(SensorBusError) {
        _ = try run(address: address, [.write([command, value])])
    }

    public func readWordData(address: UInt8, command: UInt8) throws(SensorBusError) -> UInt16 {
        let bytes = try run(address: address, [.write([command]), .read(2)])
        guard bytes.count == 2 else { return 0xFFFF }
        return UInt16(bytes[0]) | UInt16(bytes[1]) << 8
    }

    public func writeWordData(address: UInt8, command: UInt8, value: UInt16) throws(SensorBusError) {
        _ = try run(address: address, [.write([command, UInt8(truncatingIfNeeded: value), UInt8(value >> 8)])])
    }

    public func readBlockData(address: UInt8, command: UInt8) throws(SensorBusError) -> [UInt8] {
        try run(address: address, [.write([command]), .blockRead])
    }

    public func writeBlockData(address: UInt8, command: UInt8, bytes: [UInt8]) throws(SensorBusError) {
        guard bytes.count <= SMBusLimits.maxBlockLength else {
            throw .invalidRequest(bus: busNumber, address: address, reason: "SMBus blocks carry at most 32 bytes, got \(bytes.count)")
        }
        _ = try run(address: address, [.write([command, UInt8(bytes.count)] + bytes)])
    }

    public func readI2CBlockData(address: UInt8, command: UInt8, count: Int) throws(SensorBusError) -> [UInt8] {
        guard (1...SMBusLimits.maxBlockLength).contains(count) else {
            throw .invalidRequest(bus: busNumber, address: address, reason: "I2C block reads take 1...32 bytes, asked for \(count)")
        }
        return try run(address: address, [.write([command]), .read(count)])
    }

    public func transfer(_ messages: [I2CMessage]) throws(SensorBusError) -> [[UInt8]] {
        // Group consecutive messages per address; a combined transfer to one chip is one transaction.
        var results: [[UInt8]] = []
        var index = 0
        while index < messages.count {
            let address = messages[index].address
            var phases: [Phase] = []
            var readCounts: [Int] = []
            while index < messages.count, messages[index].address == address {
                switch messages[index] {
                case let .write(_, bytes): phases.append(.write(bytes))
                case let .read(_, count):
                    guard count >= 0 else {
                        throw .invalidRequest(bus: busNumber, address: address, reason: "read length \(count) out of range")
                    }
                    phases.append(.read(count))
                    readCounts.append(count)
                }
                index += 1
            }
            var data = try run(address: address, phases)[...]
            for count in readCounts {
                results.append(Array(data.prefix(count)))
                data = data.dropFirst(count)
            }
        }
        return results
    }
}

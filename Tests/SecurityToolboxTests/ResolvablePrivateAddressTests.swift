import BLECore
import SecurityToolbox
import Testing

@Suite struct ResolvablePrivateAddressTests {
    /// The spec's ah sample as an address: prand 708194 above hash 0dfbaa.
    static let sampleIRK = SampleData.wire("ec0234a3 57c8ad05 341010a6 0a397d9b")
    static let sampleAddress = DeviceAddress(BluetoothAddress("70:81:94:0D:FB:AA")!, type: .randomDevice)

    @Test func specSampleResolves() {
        #expect(ResolvablePrivateAddress.isResolvable(Self.sampleAddress))
        #expect(ResolvablePrivateAddress.resolves(Self.sampleAddress, irk: Self.sampleIRK))
    }

    @Test func madeAddressesResolveWithTheirIRKOnly() throws {
        let irk = SecureRandom.bytes(16)
        let otherIRK = SecureRandom.bytes(16)
        for _ in 0..<50 {
            let address = try ResolvablePrivateAddress.make(irk: irk)
            let device = DeviceAddress(address, type: .randomDevice)
            #expect(ResolvablePrivateAddress.isResolvable(device))
            #expect(ResolvablePrivateAddress.resolves(device, irk: irk))
            #expect(!ResolvablePrivateAddress.resolves(device, irk: otherIRK))
            // prand's 22 random bits are neither all 0 nor all 1.
            let bytes = address.littleEndianBytes
            #expect(!(bytes[3] == 0 && bytes[4] == 0 && bytes[5] & 0x3F == 0))
            #expect(!(bytes[3] == 0xFF && bytes[4] == 0xFF && bytes[5] & 0x3F == 0x3F))
        }
    }

    @Test func otherAddressesAreNotResolvable() {
        let bytes = Self.sampleAddress.address
        #expect(!ResolvablePrivateAddress.isResolvable(DeviceAddress(bytes, type: .publicDevice)))
        #expect(!ResolvablePrivateAddress.resolves(DeviceAddress(bytes, type: .publicDevice), irk: Self.sampleIRK))
        // Static random (top bits 11) and non-resolvable private (00) addresses.
        #expect(!ResolvablePrivateAddress.isResolvable(DeviceAddress(BluetoothAddress("F0:81:94:0D:FB:AA")!, type: .randomDevice)))
        #expect(!ResolvablePrivateAddress.isResolvable(DeviceAddress(BluetoothAddress("30:81:94:0D:FB:AA")!, type: .randomDevice)))
    }

    @Test func wrongIRKLengthsNeverResolveAndMakeThrows() {
        for count in [0, 15, 17, 32] {
            #expect(!ResolvablePrivateAddress.resolves(Self.sampleAddress, irk: [UInt8](repeating: 0, count: count)))
            #expect(throws: SecurityToolboxError.invalidLength(what: "IRK", expected: 16, actual: count)) {
                try ResolvablePrivateAddress.make(irk: [UInt8](repeating: 0, count: count))
            }
        }
    }
}

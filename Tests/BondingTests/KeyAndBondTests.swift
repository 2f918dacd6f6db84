import BLECore
import Bonding
import Foundation
import Testing

@Suite struct KeyAndBondTests {
    /// 0xA5 is 165: neither "a5" nor "165" appears in any rendering below except through the key.
    static let secret: [UInt8] = Array(repeating: 0xA5, count: 16)

    @Test func keyNeedsExactly16Bytes() {
        #expect(Key128(Array(repeating: 0, count: 15)) == nil)
        #expect(Key128(Array(repeating: 0, count: 17)) == nil)
        #expect(Key128(Self.secret)?.bytes == Self.secret)
    }

    @Test func noPrintedFormShowsTheKey() throws {
        let key = try #require(Key128(Self.secret))
        let ltk = LongTermKeyRecord(key: key, ediv: 1, rand: 2, keySize: 16, authenticated: true, secureConnections: true)
        let bond = Bond(
            identity: DeviceAddress(BluetoothAddress("C1:22:33:44:55:66")!, type: .randomDevice), ltk: ltk,
            peerLTK: ltk, peerIRK: key, peerCSRK: key, localCSRK: key,
            createdAt: Date(timeIntervalSinceReferenceDate: 0), lastSeen: Date(timeIntervalSinceReferenceDate: 0))
        var dumped = ""
        dump(bond, to: &dumped)
        let renderings = [
            "\(key)", String(reflecting: key), "\(bond)", String(reflecting: bond), dumped, "\(ltk)",
            "\(LocalIdentity(irk: key, address: .zero, csrk: key))",
        ]
        for text in renderings {
            #expect(!text.lowercased().contains("a5"), "\(text)")
            #expect(!text.contains("165"), "\(text)")
        }
        #expect("\(key)" == "<redacted 128-bit key>")
        #expect(String(reflecting: key) == "<redacted 128-bit key>")
    }

    @Test func identityTypesNameTheSameBond() {
        let address = BluetoothAddress("C1:22:33:44:55:66")!
        #expect(DeviceAddress(address, type: .publicIdentity).bondIdentity == DeviceAddress(address, type: .publicDevice))
        #expect(DeviceAddress(address, type: .randomIdentity).bondIdentity == DeviceAddress(address, type: .randomDevice))
        #expect(DeviceAddress(address, type: .randomDevice).bondIdentity == DeviceAddress(address, type: .randomDevice))
    }

    @Test(arguments: [6, 17, 0]) func keySizeOutside7To16IsRejected(size: Int) throws {
        let key = try #require(Key128(Self.secret))
        let ltk = LongTermKeyRecord(key: key, ediv: 0, rand: 0, keySize: size, authenticated: false, secureConnections: true)
        let bond = Bond(identity: DeviceAddress(.zero, type: .publicDevice), ltk: ltk, createdAt: Date(), lastSeen: Date())
        #expect(throws: BondStoreError.self) { try bond.validated() }
    }

    @Test func errorMessagesSayWhatToDo() {
        let corrupt = BondStoreError.corrupt(path: "/var/lib/blesensor/bonds.sqlite", reason: "file is not a database")
        #expect(corrupt.description.contains("/var/lib/blesensor/bonds.sqlite"))
        #expect(corrupt.description.contains("remove it to forget all bonds"))
        let permissions = BondStoreError.permissions(path: "/x", mode: 0o100644)
        #expect(permissions.description.contains("mode 644"))
        #expect(permissions.description.contains("chmod 600"))
        #expect(BondStoreError.full(max: 32).description.contains("32"))
    }
}

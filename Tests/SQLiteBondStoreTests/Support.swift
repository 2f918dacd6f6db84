import BLECore
import Bonding
import Foundation
@testable import SQLiteBondStore

/// A directory removed when the test's last reference goes.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "bondstore-XXXXXX").utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    var database: String { path + "/bonds.sqlite" }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Both stores run the same contract.
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case inMemory, sqlite, sqliteCopyInMemory
    var description: String { rawValue }

    func make(in directory: TemporaryDirectory, maximumBonds: Int = BondStoreLimits.defaultMaximumBonds) throws -> any BondStore & MeasurementStore {
        switch self {
        case .inMemory: return InMemoryBondStore(maximumBonds: maximumBonds)
        case .sqlite: return try SQLiteBondStore(path: directory.database, maximumBonds: maximumBonds)
        case .sqliteCopyInMemory: return try SQLiteBondStore.inMemoryCopy(of: directory.database, maximumBonds: maximumBonds)
        }
    }
}

enum Sample {
    static func key(_ seed: UInt8) -> Key128 { Key128((0..<16).map { seed &+ UInt8($0) })! }

    static func identity(_ n: Int, type: AddressType = .publicDevice) -> DeviceAddress {
        DeviceAddress(BluetoothAddress(littleEndian: [UInt8(n & 0xFF), UInt8(n >> 8), 0x33, 0x22, 0x11, 0xC0]), type: type)
    }

    static func date(_ seconds: Double) -> Date { Date(timeIntervalSinceReferenceDate: 790_000_000 + seconds) }

    /// Every optional filled, and values at the edges of their types.
    static func bond(_ n: Int, seen: Double = 0, rand: UInt64 = 0xFEDC_BA98_7654_3210) -> Bond {
        Bond(
            identity: identity(n),
            ltk: LongTermKeyRecord(key: key(UInt8(n)), ediv: 0xFFFF, rand: rand, keySize: 16, authenticated: true, secureConnections: false),
            peerLTK: LongTermKeyRecord(key: key(0x40), ediv: 0x1234, rand: .max, keySize: 7, authenticated: false, secureConnections: false),
            peerIRK: key(0x80), peerCSRK: key(0x90), peerSignCounter: .max, localCSRK: key(0xA0), localSignCounter: 7,
            createdAt: date(0.123456789), lastSeen: date(seen + 0.987654321))
    }

    /// Only what an SC pairing without signing leaves.
    static func minimalBond(_ n: Int, seen: Double = 0) -> Bond {
        Bond(
            identity: identity(n, type: .randomDevice),
            ltk: LongTermKeyRecord(key: key(1), ediv: 0, rand: 0, keySize: 16, authenticated: false, secureConnections: true),
            createdAt: date(1), lastSeen: date(seen))
    }

    static let localIdentity = LocalIdentity(irk: key(0x11), address: BluetoothAddress("C5:44:33:22:11:00")!, csrk: key(0x22))
    static let hash: [UInt8] = Array(0..<16)
}

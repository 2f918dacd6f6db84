// Writes to a bond database until it is killed, printing "committed <n>" after write n has returned (so is
// committed and synced). The crash test in SQLiteBondStoreTests kills it with SIGKILL and checks that every
// reported write is in the database. Even n: a bond for slot (n / 2) % 8 whose numbers all carry n; odd n: a
// measurement for the measurement peer holding n. CrashPlan in the test mirrors this.
import BLECore
import Bonding
import Foundation
import SQLiteBondStore

func emit(_ line: String) {
    // One write(2) per line: unbuffered, and atomic on a pipe, so a kill never leaves half a line.
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bond-store-crash-writer: \(message)\n".utf8))
    exit(1)
}

func slotIdentity(_ slot: Int) -> DeviceAddress {
    DeviceAddress(BluetoothAddress(littleEndian: [UInt8(slot), 0, 0, 0, 0, 0xC0]), type: .randomDevice)
}

let measurementPeer = DeviceAddress(BluetoothAddress(littleEndian: [0, 1, 0, 0, 0, 0xC0]), type: .randomDevice)

func bond(_ identity: DeviceAddress, _ n: Int) -> Bond {
    let key = Key128((0..<16).map { UInt8(truncatingIfNeeded: n &+ $0) })!
    return Bond(
        identity: identity,
        ltk: LongTermKeyRecord(key: key, ediv: UInt16(truncatingIfNeeded: n), rand: UInt64(n) | 1 << 63, keySize: 16,
                               authenticated: true, secureConnections: true),
        localSignCounter: UInt32(n), createdAt: Date(), lastSeen: Date())
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let first = Int(arguments[2]) else { fail("usage: bond-store-crash-writer <database> <first n>") }
do {
    let store = try SQLiteBondStore(path: arguments[1], maximumBonds: 16)
    emit("opened")
    if try await store.bond(for: measurementPeer) == nil {
        try await store.saveBond(bond(measurementPeer, 0), gattState: .empty, replacing: nil)
    }
    var n = first
    while true {
        if n % 2 == 0 {
            let state = PeerGATTState(cccds: [0x10: UInt16(truncatingIfNeeded: n) | 1])
            try await store.saveBond(bond(slotIdentity((n / 2) % 8), n), gattState: state, replacing: nil)
        } else {
            _ = try await store.enqueueMeasurement(
                valueHandle: 0x21, value: withUnsafeBytes(of: Int64(n).littleEndian, Array.init), takenAt: Date(),
                for: measurementPeer, limit: 1_000_000)
        }
        emit("committed \(n)")
        n += 1
    }
} catch {
    fail("\(error)")
}

import Foundation
import HCI
import Logging
import Synchronization
import Testing

@testable import HCITransports

@Suite struct BTSnoopTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("snoop-\(UUID().uuidString).btsnoop").path
    }

    /// btsnoop header: "btsnoop\0", version 1, datalink 1002 (H4), all big-endian.
    static let fileHeader: [UInt8] = [
        0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00,
        0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x03, 0xEA,
    ]

    @Test func snoopingTransportRecordsBothDirectionsWithExactBytes() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 2023-11-14T22:13:20Z, then +1 µs per record.
        let clock = Mutex<Int64>(1_700_000_000_000_000)
        let writer = try BTSnoopWriter(path: path) {
            clock.withLock { now in
                defer { now += 1 }
                return now
            }
        }
        let fake = FakeTransport()
        let snooping = SnoopingTransport(wrapping: fake, writer: writer, logger: Logger(label: "test"))
        #expect(snooping.name == "fake")
        let recorder = EventRecorder()
        try await snooping.open(handler: recorder.handler)

        let reset = HCIPacket(type: .command, body: [0x03, 0x0C, 0x00])
        let complete = HCIPacket(type: .event, body: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        let aclIn = HCIPacket(type: .acl, body: [0x40, 0x20, 0x01, 0x00, 0xAB])
        let aclOut = HCIPacket(type: .acl, body: [0x40, 0x00, 0x00, 0x00])
        try snooping.send(reset)
        fake.deliver(.packet(complete))
        fake.deliver(.packet(aclIn))
        try snooping.send(aclOut)
        snooping.close()

        #expect(fake.sent == [reset, aclOut])
        #expect(recorder.packets == [complete, aclIn])
        #expect(recorder.closures == [nil])

        // 1_700_000_000_000_000 + 0x00DCDDB30F2F8000 = 0x00E2E7D7274DC000
        // One part per line: a single `+` chain of ten literals is too much for Swift 6.2's type checker.
        let parts: [[UInt8]] = [
            Self.fileHeader,
            // sent command: lengths 4, flags 0b10 (command/event, sent), drops 0
            [0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 0, 0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x4D, 0xC0, 0x00],
            [0x01, 0x03, 0x0C, 0x00],
            // received event: lengths 7, flags 0b11
            [0, 0, 0, 7, 0, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0, 0, 0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x4D, 0xC0, 0x01],
            [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00],
            // received ACL: lengths 6, flags 0b01
            [0, 0, 0, 6, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x4D, 0xC0, 0x02],
            [0x02, 0x40, 0x20, 0x01, 0x00, 0xAB],
            // sent ACL: lengths 5, flags 0b00
            [0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x4D, 0xC0, 0x03],
            [0x02, 0x40, 0x00, 0x00, 0x00],
        ]
        let expected = parts.flatMap { $0 }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes == expected)
    }

    @Test func failedSendIsNotRecorded() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let snooping = try SnoopingTransport(wrapping: FakeTransport(), path: path, logger: Logger(label: "test"))
        #expect(throws: HCITransportError.notOpen("fake")) {
            try snooping.send(HCIPacket(type: .command, body: [0x03, 0x0C, 0x00]))
        }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes == Self.fileHeader)
    }

    @Test func wallClockTimestampIsNearNow() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        #expect(abs(BTSnoopWriter.wallClockMicroseconds() - now) < 5_000_000)
    }

    @Test func uncreatableFileGivesClearError() {
        let path = "/nonexistent-dir-\(UUID().uuidString)/capture.btsnoop"
        #expect(throws: HCITransportError.snoopFileFailed(path: path, reason: "No such file or directory")) {
            _ = try BTSnoopWriter(path: path)
        }
        let description = HCITransportError.snoopFileFailed(path: path, reason: "No such file or directory").description
        #expect(description.contains("check the directory exists and is writable"))
    }

    @Test func aCaptureIsPrivateAndNeverOverwritesOrFollowsALink() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BTSnoopWriter(path: path)
        writer.close()
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(throws: HCITransportError.snoopFileFailed(path: path, reason: "it exists already; captures hold every key and are never overwritten: remove it or name a new file")) {
            _ = try BTSnoopWriter(path: path)
        }
        // A link planted where the capture goes (to a file the attacker wants written) is refused.
        let link = Self.temporaryPath()
        let target = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: link); try? FileManager.default.removeItem(atPath: target) }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: HCITransportError.self) { _ = try BTSnoopWriter(path: link) }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func recordingAfterCloseFails() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BTSnoopWriter(path: path)
        writer.close()
        writer.close()
        #expect(throws: HCITransportError.snoopFileFailed(path: path, reason: "the capture was closed")) {
            try writer.record(HCIPacket(type: .event, body: [0x13, 0x00]), direction: .received)
        }
    }
}

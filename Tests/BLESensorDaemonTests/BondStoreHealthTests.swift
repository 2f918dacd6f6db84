import BLECore
import Bonding
import BridgeConfiguration
import Foundation
import Logging
import SMP
import SQLiteBondStore
import Synchronization
import Testing
import TestSupport
@testable import BLESensorDaemon

/// What the daemon does when its bond store's file system fails it: read-only, full, or failing
/// store-and-forward writes. Each shows in status (`BondStoreHealth.problems`).
@Suite struct BondStoreHealthTests {
    static func configuration(stateDirectory: String) throws -> BridgeConfiguration {
        var configuration = try BridgeConfiguration.demo(boardsDirectories: [], environment: [:]).get()
        configuration.paths.stateDirectory = stateDirectory
        return configuration
    }

    static func temporaryDirectory() -> String {
        var template = Array((NSTemporaryDirectory() + "store-health-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    @Test func aReadOnlyStateDirectoryServesTheBondsFromMemoryAndSaysSo() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = try Self.configuration(stateDirectory: directory)
        let path = DaemonSecurity.bondsPath(configuration)
        do {
            let store = try SQLiteBondStore(path: path)
            try await store.saveBond(SecurityFixture.phone, gattState: .empty, replacing: nil)
            try store.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let opened = try await DaemonSecurity.openStore(configuration, logger: Logger(label: "test"), isReadOnly: { _ in true })
        #expect(opened.store.isInMemory)
        #expect(try await opened.store.bonds().map(\.identity) == [SecurityFixture.phoneIdentity])
        #expect(opened.problems.count == 1)
        #expect(opened.problems.first?.contains("read-only file system") == true)
        #expect(opened.problems.first?.contains("lost when the daemon stops") == true)
        try await opened.store.saveBond(SecurityFixture.laptop, gattState: .empty, replacing: nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // A new bond would live in memory only and be gone at the next start: refused.
        let health = BondStoreHealth(stateDirectory: directory, startupProblems: opened.problems, inMemory: true,
                                     storage: { _ in .init(availableBytes: 1 << 30, readOnly: true) })
        #expect(await health.refusalForNewBond()?.contains("a new bond would be lost at the next start") == true)
        #expect(health.problems == opened.problems)
    }

    @Test func aWritableStateDirectoryIsNotReportedReadOnly() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(!BondStoreHealth.isReadOnly(directory))
        let opened = try await DaemonSecurity.openStore(try Self.configuration(stateDirectory: directory), logger: Logger(label: "test"))
        #expect(!opened.store.isInMemory && opened.problems.isEmpty)
    }

    @Test func aBondIsRefusedBeforeAnyKeyWhenTheDiskIsFull() async {
        let free = Mutex<UInt64?>(64 * 1024)
        let health = BondStoreHealth(stateDirectory: "/var/lib/blesensor",
                                     storage: { _ in free.withLock { $0 }.map { .init(availableBytes: $0, readOnly: false) } })
        var settings = SecuritySettings()
        settings.pairing = .always
        let agent = DaemonPairingAgent(settings: settings, clock: ManualClock(), storeHealth: health, logger: Logger(label: "test"))
        guard case let .refuse(reason, because) = await agent.mayPair(PairingAgentPolicyTests.link(1), request: PairingAgentPolicyTests.request) else {
            Issue.record("a bond was accepted with 64 KiB free")
            return
        }
        #expect(reason == .unspecifiedReason)
        #expect(because.contains("only 64 KiB free in /var/lib/blesensor"))
        // Pairing without bonding stores nothing: nothing to refuse.
        var unbonded = PairingAgentPolicyTests.request
        unbonded.authentication.remove(.bonding)
        #expect(await agent.mayPair(PairingAgentPolicyTests.link(2), request: unbonded) == .allow)
        // Space again, or space that cannot be read (the write itself will then say): allowed.
        free.withLock { $0 = 8 << 20 }
        #expect(await agent.mayPair(PairingAgentPolicyTests.link(3), request: PairingAgentPolicyTests.request) == .allow)
        free.withLock { $0 = nil }
        #expect(await agent.mayPair(PairingAgentPolicyTests.link(4), request: PairingAgentPolicyTests.request) == .allow)
    }

    @Test func aPolicyRefusalIsNotHiddenByTheSpaceCheck() async {
        let health = BondStoreHealth(stateDirectory: "/var/lib/blesensor", storage: { _ in .init(availableBytes: 0, readOnly: false) })
        var settings = SecuritySettings()
        settings.pairing = .never
        let agent = DaemonPairingAgent(settings: settings, clock: ManualClock(), storeHealth: health, logger: Logger(label: "test"))
        guard case .refuse(.pairingNotSupported, _) = await agent.mayPair(PairingAgentPolicyTests.link(1), request: PairingAgentPolicyTests.request) else {
            Issue.record("pairing: never did not refuse with Pairing Not Supported")
            return
        }
    }

    @Test func failingStoreAndForwardWritesShowUntilOneWorks() {
        let health = BondStoreHealth(stateDirectory: "/var/lib/blesensor", startupProblems: ["a bond could not be read"])
        health.storeAndForwardFailed(lost: 2, because: "database or disk is full")
        health.storeAndForwardFailed(lost: 3, because: "database or disk is full")
        #expect(health.problems == ["a bond could not be read",
                                    "store-and-forward: 5 measurement(s) for absent centrals not kept since the last write that worked (database or disk is full)"])
        health.storeAndForwardWorks()
        #expect(health.problems == ["a bond could not be read"])
    }

    @Test func theStorageProbeReadsTheRealFileSystem() {
        let temporary = BondStoreHealth.storage(of: NSTemporaryDirectory())
        #expect((temporary?.availableBytes ?? 0) > 0 && temporary?.readOnly == false)
        #expect(BondStoreHealth.storage(of: "/nonexistent-\(UInt32.random(in: 0...UInt32.max))") == nil)
    }

    @Test func aCardRemountedReadOnlyWhileRunningRefusesTheBond() async {
        let health = BondStoreHealth(stateDirectory: "/var/lib/blesensor", storage: { _ in .init(availableBytes: 1 << 30, readOnly: true) })
        #expect(await health.refusalForNewBond()?.contains("became read-only") == true)
    }
}

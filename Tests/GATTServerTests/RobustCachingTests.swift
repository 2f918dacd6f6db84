import ATT
import BLECore
import GATT
import GATTServer
import Testing
import TestSupport

/// Robust caching (Core Vol 3 Part G 2.5.2.1) after a database change, for a client that set
/// Client Supported Features bit 0 (handle 0x0D) and one that did not.
@Suite(.scaledTimeLimit(minutes: 1)) struct RobustCachingTests {
    /// Link 1 enables robust caching; the database then changes under both links.
    func changedDatabase(to database: AttributeDatabase? = nil) async throws -> Harness {
        let harness = try Harness()
        #expect(await harness.exchange("12 0d00 01", on: 1) == "13")
        harness.server.replaceDatabase(try database ?? ReplacementDatabase.make())
        #expect(!harness.server.isChangeAware(harness.link(1)))
        #expect(harness.server.isChangeAware(harness.link(2)))
        return harness
    }

    @Test func aChangeUnawareClientIsToldOutOfSyncOnceThenBecomesAware() async throws {
        let harness = try await changedDatabase()
        // Requests at attribute handles get Database Out Of Sync (0x12) naming the handle…
        #expect(await harness.exchange("0a 0300", on: 1) == h("01 0a 0300 12"))
        // …once: the request after that error is served, and the client is change-aware.
        #expect(await harness.exchange("0a 0300", on: 1) == h("0b") + Array("blesensor".utf8).hexString)
        #expect(harness.server.isChangeAware(harness.link(1)))
        // A client without robust caching never hears of it.
        #expect(await harness.exchange("0a 0300", on: 2) == h("0b") + Array("blesensor".utf8).hexString)
    }

    @Test func discoveryStaysAllowedAndReadingTheHashLeadsToAwareness() async throws {
        let harness = try await changedDatabase()
        // Discovery and a Read By Type over the whole range (how a client reads the hash) are served.
        #expect(await harness.exchange("10 0100 ffff 0028", on: 1)?.hasPrefix("11") == true)
        #expect(await harness.exchange("08 0100 ffff 2a2b", on: 1)?.hasPrefix("09") == true)
        // Having read the hash, the client's next request is served as change-aware.
        #expect(await harness.exchange("0a 0300", on: 1)?.hasPrefix("0b") == true)
        #expect(harness.server.isChangeAware(harness.link(1)))
        // A Read By Type of something else over part of the range is a request at handles.
        harness.server.replaceDatabase(try TestDatabase.make())
        #expect(await harness.exchange("08 0100 0010 0329", on: 1) == h("01 08 0100 12"))
    }

    @Test func commandsOfAChangeUnawareClientAreIgnored() async throws {
        // The same layout again: still a change as far as the client can know.
        let harness = try await changedDatabase(to: try TestDatabase.make())
        harness.feed("52 1a00 aa", on: 1)
        #expect(await harness.expectSilence(after: "52 1a00 bb", on: 2))
        // The write command from the unaware client never reached the application.
        #expect(await harness.exchange("0a 1a00", on: 1) == h("01 0a 1a00 12"))
        #expect(harness.delegate.writes.map(\.connection) == [2])
    }

    @Test func confirmingServiceChangedMakesTheClientAware() async throws {
        let harness = try await changedDatabase()
        let serviceChanged = try #require(harness.server.database.valueHandle(for: .serviceChanged))
        harness.delegate.state.withLock { $0.confirmedHandle = serviceChanged }
        harness.feed("1e", on: 1)
        #expect(harness.server.isChangeAware(harness.link(1)))
        #expect(await harness.exchange("0a 0300", on: 1)?.hasPrefix("0b") == true)
    }

    @Test func anotherChangeBeforeAwarenessStartsOver() async throws {
        let harness = try await changedDatabase()
        #expect(await harness.exchange("0a 0300", on: 1) == h("01 0a 0300 12"))
        harness.server.replaceDatabase(try TestDatabase.make())
        // The error is sent again for the new change.
        #expect(await harness.exchange("0a 0300", on: 1) == h("01 0a 0300 12"))
        #expect(await harness.exchange("0a 0300", on: 1)?.hasPrefix("0b") == true)
    }

    @Test func aNewLinkStartsChangeAware() async throws {
        let harness = try await changedDatabase()
        harness.close(1)
        harness.open(1)
        #expect(harness.server.isChangeAware(harness.link(1)))
        #expect(await harness.exchange("0a 0300", on: 1)?.hasPrefix("0b") == true)
    }
}

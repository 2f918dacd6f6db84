import ATT
import BLECore
import GATT
import L2CAP
import Testing
import PeripheralTestSupport
import TestSupport
import VirtualController
@testable import Peripheral

/// The peripheral asks each central for Apple-compatible parameters once, some seconds after it
/// connected, and leaves a central that refuses alone.
@Suite(.scaledTimeLimit(minutes: 1)) struct ConnectionParameterRequestTests {
    /// Connection Parameter Update Request (Vol 3 Part A 4.20): code 0x12, 8 parameter bytes.
    static func isParameterRequest(_ payload: [UInt8]) -> Bool { payload.first == 0x12 && payload.count == 12 }

    static let slower = ConnectionParameterRequest(
        parameters: PreferredConnectionParameters(intervalMin: .milliseconds(60), intervalMax: .milliseconds(90), latency: 2,
                                                  supervisionTimeout: .seconds(6)),
        delay: .seconds(5))

    static let roundTrip = ATTPDU.readByGroupTypeRequest(startHandle: 0x0001, endHandle: 0xFFFF, groupType: GATTUUID.primaryService)

    static func answer(_ request: [UInt8], accepted: Bool, on client: ATTTestClient) throws {
        let response: [UInt8] = [0x13, request[1], 0x02, 0x00, accepted ? 0x00 : 0x01, 0x00]
        try client.link.send(l2capPDU: L2CAPBasicFrame.pdu(channelID: L2CAPChannelID.leSignaling, payload: response))
    }

    @Test func askedOnceFiveSecondsAfterConnectingWithTheStandardParameters() async throws {
        let clock = ManualClock()
        // The virtual central connects at 30–50 ms with a 5 s timeout, which the standard request
        // already accepts; ask for something else.
        let fixture = try await PeripheralFixture(clock: clock) { $0.connectionParameterRequest = Self.slower }
        let client = try await fixture.connect(1)
        clock.advance(by: .milliseconds(4999))
        // Barrier: a round trip after the clock moved; nothing was asked yet.
        _ = await client.request(Self.roundTrip)
        #expect(client.signaling.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(await client.signaling.wait(for: 1))
        let request = try #require(client.signaling.all.first)
        #expect(Self.isParameterRequest(request))
        // 60–90 ms (48–72 × 1.25 ms), latency 2, 6 s (600 × 10 ms), little-endian.
        #expect(Array(request[4...]) == [48, 0, 72, 0, 2, 0, 0x58, 0x02])
        try Self.answer(request, accepted: false, on: client)
        // Refused: the central keeps its parameters and is not asked again, however long it stays.
        clock.advance(by: .seconds(120))
        _ = await client.request(Self.roundTrip)
        #expect(client.signaling.all.count == 1)
        #expect(fixture.recorder.count { if case .centralDisconnected = $0 { true } else { false } } == 0)
        await fixture.manager.shutdown()
    }

    @Test func aCentralThatLeavesFirstIsNotAsked() async throws {
        let clock = ManualClock()
        let fixture = try await PeripheralFixture(clock: clock) { $0.connectionParameterRequest = Self.slower }
        let requests = try #require(fixture.manager.parameterRequests)
        let client = try await fixture.connect(1)
        #expect(requests.waitingLinks == 1)
        client.link.disconnect()
        await fixture.recorder.wait { if case .centralDisconnected = $0 { true } else { false } }
        #expect(requests.waitingLinks == 0)
        clock.advance(by: .seconds(10))
        #expect(client.signaling.all.isEmpty)
        await fixture.manager.shutdown()
    }

    @Test func aCentralAlreadyWithinTheRangeIsNotAsked() async throws {
        let clock = ManualClock()
        let fixture = try await PeripheralFixture(clock: clock)
        let client = try await fixture.connect(1)
        clock.advance(by: .seconds(30))
        _ = await client.request(Self.roundTrip)
        #expect(client.signaling.all.isEmpty)
        await fixture.manager.shutdown()
    }

    @Test func withoutARequestConfiguredNothingIsAsked() async throws {
        let clock = ManualClock()
        let fixture = try await PeripheralFixture(clock: clock) { $0.connectionParameterRequest = nil }
        let client = try await fixture.connect(1)
        clock.advance(by: .seconds(30))
        _ = await client.request(Self.roundTrip)
        #expect(client.signaling.all.isEmpty)
        await fixture.manager.shutdown()
    }
}

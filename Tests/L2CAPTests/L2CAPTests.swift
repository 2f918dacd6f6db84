import BLECore
import HCI
import Synchronization
import Testing
import TestSupport
@testable import L2CAP

/// Records B-frames the fixed channels send, decoded from the ACL packets; `wait(for:)` is the
/// barrier a test waits on instead of sleeping.
final class SentFrames: Sendable {
    private let frames = Recorder<(UInt16, L2CAPBasicFrame)>()

    func record(_ packet: HCIPacket) -> Bool {
        guard let acl = try? HCIACLPacket(body: packet.body), let frame = try? L2CAPBasicFrame(pdu: acl.data) else { return true }
        frames.append((acl.handle, frame))
        return true
    }

    var all: [(UInt16, L2CAPBasicFrame)] { frames.all }

    /// Waits until at least `count` frames were sent.
    func wait(for count: Int) async {
        await frames.wait(for: count)
    }
}

func testLink(_ handle: UInt16) -> Link {
    Link(handle: handle, role: .peripheral, peer: DeviceAddress(BluetoothAddress("C0:00:00:00:00:01")!, type: .randomDevice),
         parameters: Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 500))
}

func makeChannels(links: [Link] = [testLink(0x40)], clock: ManualClock = ManualClock()) -> (L2CAPFixedChannels, SentFrames, [Link]) {
    let sent = SentFrames()
    // The ACL layer keeps its own clock: only signaling timers run on the test's.
    let acl = ACLFlowController(clock: ManualClock(), send: { sent.record($0) })
    acl.configure(bufferSize: 251, bufferCount: 8)
    links.forEach(acl.add)
    return (L2CAPFixedChannels(acl: acl, clock: clock), sent, links)
}

@Suite struct L2CAPBasicFrameTests {
    @Test func parsesAndBuildsTheBasicHeader() throws {
        let frame = try L2CAPBasicFrame(pdu: [0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00])
        #expect(frame.channelID == L2CAPChannelID.attribute)
        #expect(frame.payload == [0x02, 0xF7, 0x00])
        #expect(frame.pdu == [0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00])
    }

    @Test func rejectsInconsistentFrames() {
        #expect(throws: L2CAPFrameError.truncated(3)) { try L2CAPBasicFrame(pdu: [0x00, 0x00, 0x04]) }
        #expect(throws: L2CAPFrameError.lengthMismatch(declared: 5, actual: 1)) { try L2CAPBasicFrame(pdu: [0x05, 0x00, 0x04, 0x00, 0x01]) }
    }
}

@Suite struct LESignalingTests {
    @Test func connectionParameterUpdateRequestBytes() throws {
        // Code 0x12, identifier 1, length 8: interval 24–40 (30–50 ms), latency 0, timeout 5 s.
        let request = LESignalingCommand.connectionParameterUpdateRequest(identifier: 1,
            parameters: LEConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 500))
        #expect(request.encoded.hexString == "12010800" + "1800" + "2800" + "0000" + "f401")
        #expect(try LESignalingCommand(decoding: request.encoded) == request)
    }

    @Test func responsesAndRejects() throws {
        #expect(try LESignalingCommand(decoding: [0x13, 0x07, 0x02, 0x00, 0x00, 0x00]) == .connectionParameterUpdateResponse(identifier: 7, accepted: true))
        #expect(try LESignalingCommand(decoding: [0x13, 0x07, 0x02, 0x00, 0x01, 0x00]) == .connectionParameterUpdateResponse(identifier: 7, accepted: false))
        #expect(try LESignalingCommand(decoding: [0x01, 0x07, 0x02, 0x00, 0x00, 0x00]) == .commandReject(identifier: 7, reason: 0, data: []))
        #expect(try LESignalingCommand(decoding: [0x20, 0x03, 0x00, 0x00]) == .unsupported(code: 0x20, identifier: 3))
        #expect(try LESignalingCommand(decoding: [0x07, 0x03, 0x04, 0x00, 0x40, 0x00, 0x41, 0x00]) == .otherResponse(code: 0x07, identifier: 3))
        #expect(throws: LESignalingDecodingError.truncatedHeader) { try LESignalingCommand(decoding: [0x12, 0x01, 0x08]) }
        #expect(throws: LESignalingDecodingError.malformed(code: 0x12, identifier: 1)) { try LESignalingCommand(decoding: [0x12, 0x01, 0x02, 0x00, 0x00, 0x00]) }
        #expect(throws: LESignalingDecodingError.malformed(code: 0x13, identifier: 0)) { try LESignalingCommand(decoding: [0x13, 0x00, 0x02, 0x00, 0x00, 0x00]) }
    }

    @Test func decodingIsTotal() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...30, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? LESignalingCommand(decoding: bytes)
            _ = try? L2CAPBasicFrame(pdu: bytes)
        }
    }
}

@Suite struct L2CAPFixedChannelTests {
    @Test func parameterUpdateAcceptedRejectedAndTimedOut() async throws {
        let clock = ManualClock()
        let (channels, sent, links) = makeChannels(clock: clock)
        let link = links[0]
        let parameters = LEConnectionParameters(intervalMin: 6, intervalMax: 12, latency: 0, supervisionTimeout: 200)
        async let accepted = channels.requestConnectionParameterUpdate(parameters, on: link)
        await sent.wait(for: 1)
        let (handle, request) = try #require(sent.all.last)
        #expect(handle == 0x40)
        #expect(request.channelID == L2CAPChannelID.leSignaling)
        guard case let .connectionParameterUpdateRequest(identifier, sentParameters) = try LESignalingCommand(decoding: request.payload) else {
            Issue.record("not a parameter update request")
            return
        }
        #expect(sentParameters == parameters)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: LESignalingCommand.connectionParameterUpdateResponse(identifier: identifier, accepted: true).encoded).pdu, on: link)
        #expect(await accepted == .accepted)
        // Answered: its RTX timer is cancelled, not left to fire later.
        #expect(clock.pendingTimers == 0)

        async let rejected = channels.requestConnectionParameterUpdate(parameters, on: link)
        await sent.wait(for: 2)
        guard case let .connectionParameterUpdateRequest(second, _) = try LESignalingCommand(decoding: sent.all.last!.1.payload) else {
            Issue.record("no second request")
            return
        }
        #expect(second != identifier)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: LESignalingCommand.commandReject(identifier: second, reason: 0, data: []).encoded).pdu, on: link)
        #expect(await rejected == .commandRejected(reason: 0))

        // The signaling timeout runs in virtual time.
        async let timedOut = channels.requestConnectionParameterUpdate(parameters, on: link, timeout: .seconds(30))
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(29))
        #expect(clock.pendingTimers == 1)
        clock.advance(by: .seconds(1))
        #expect(await timedOut == .timedOut)
    }

    @Test func aResponseCompletesOnlyItsOwnLinksRequest() async throws {
        let clock = ManualClock()
        let (channels, sent, links) = makeChannels(links: [testLink(0x40), testLink(0x41)], clock: clock)
        async let first = channels.requestConnectionParameterUpdate(LEConnectionParameters(), on: links[0])
        await sent.wait(for: 1)
        guard case let .connectionParameterUpdateRequest(identifier, _) = try LESignalingCommand(decoding: sent.all[0].1.payload) else {
            Issue.record("no request")
            return
        }
        // The other link answers with the same identifier: it is no answer to this request.
        let response = L2CAPBasicFrame(channelID: 5, payload: LESignalingCommand.connectionParameterUpdateResponse(identifier: identifier, accepted: true).encoded).pdu
        channels.receive(response, on: links[1])
        // ...and it is not answered either (no Command Reject for a response).
        #expect(sent.all.count == 1)
        channels.receive(response, on: links[0])
        #expect(await first == .accepted)
    }

    @Test func pendingRequestsEndWhenTheLinkCloses() async throws {
        let clock = ManualClock()
        let (channels, sent, links) = makeChannels(clock: clock)
        async let result = channels.requestConnectionParameterUpdate(LEConnectionParameters(), on: links[0])
        await sent.wait(for: 1)
        channels.linkClosed(links[0])
        #expect(await result == .connectionClosed)
        #expect(clock.pendingTimers == 0)
        let unknown = testLink(0x99)
        #expect(await channels.requestConnectionParameterUpdate(LEConnectionParameters(), on: unknown) == .sendFailed(.linkClosed(unknown.id)))
    }

    @Test func rejectsWhatAPeripheralMustNotAccept() throws {
        let (channels, sent, links) = makeChannels()
        let link = links[0]
        // A central asking us for parameters, an unknown request, and a malformed command.
        let fromCentral = LESignalingCommand.connectionParameterUpdateRequest(identifier: 9, parameters: LEConnectionParameters()).encoded
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: fromCentral).pdu, on: link)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x20, 0x0A, 0x02, 0x00, 0x80, 0x00]).pdu, on: link)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x12, 0x0B, 0x08, 0x00, 0x01]).pdu, on: link)
        let replies = try sent.all.map { try LESignalingCommand(decoding: $0.1.payload) }
        #expect(replies == [
            .commandReject(identifier: 9, reason: 0, data: []),
            .commandReject(identifier: 10, reason: 0, data: []),
            .commandReject(identifier: 11, reason: 0, data: []),
        ])
    }

    @Test func dynamicChannelRequestsAreRefusedWithTheRightAnswer() throws {
        let (channels, sent, links) = makeChannels()
        let link = links[0]
        // Disconnection Request for a CID that does not exist: Command Reject, Invalid CID, both CIDs echoed.
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x06, 0x21, 0x04, 0x00, 0x40, 0x00, 0x41, 0x00]).pdu, on: link)
        // LE Credit Based Connection Request to SPSM 0x0080: refused, SPSM not supported.
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x14, 0x22, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x17, 0x00, 0x17, 0x00, 0x01, 0x00]).pdu, on: link)
        // Credit Based Connection Request for two channels: refused for both.
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x17, 0x23, 0x0C, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x01, 0x00, 0x40, 0x00, 0x41, 0x00]).pdu, on: link)
        // Flow Control Credit for a channel that does not exist: ignored.
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x16, 0x24, 0x04, 0x00, 0x40, 0x00, 0x01, 0x00]).pdu, on: link)
        let replies = try sent.all.map { try LESignalingCommand(decoding: $0.1.payload) }
        #expect(replies.count == 3)
        #expect(sent.all[0].1.payload == [0x01, 0x21, 0x06, 0x00, 0x02, 0x00, 0x40, 0x00, 0x41, 0x00])
        #expect(sent.all[1].1.payload == [0x15, 0x22, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00])
        #expect(sent.all[2].1.payload == [0x18, 0x23, 0x0C, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00])
    }

    @Test func identifierZeroAndStrayResponsesGetNoAnswer() throws {
        let (channels, sent, links) = makeChannels()
        let link = links[0]
        // Identifier 0 is invalid: dropped, not rejected.
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x12, 0x00, 0x08, 0x00, 0x06, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00]).pdu, on: link)
        // Responses to requests we never sent, well-formed and malformed: never answered.
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: LESignalingCommand.connectionParameterUpdateResponse(identifier: 7, accepted: true).encoded).pdu, on: link)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x13, 0x08, 0x01, 0x00, 0x00]).pdu, on: link)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x01, 0x09, 0x02, 0x00, 0x00, 0x00]).pdu, on: link)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x07, 0x0A, 0x04, 0x00, 0x40, 0x00, 0x41, 0x00]).pdu, on: link)
        #expect(sent.all.isEmpty)
    }

    @Test func routesATTAndRefusesPairingWithoutASecurityManager() throws {
        let (channels, sent, links) = makeChannels()
        let link = links[0]
        let received = Mutex<[(LinkID, [UInt8])]>([])
        channels.setHandler(for: L2CAPChannelID.attribute) { link, payload in received.withLock { $0.append((link.id, payload)) } }
        channels.receive([0x03, 0x00, 0x04, 0x00, 0x02, 0x17, 0x00], on: link)
        #expect(received.withLock { $0.map(\.1) } == [[0x02, 0x17, 0x00]])
        #expect(received.withLock { $0.map(\.0) } == [link.id])
        // Pairing Request → Pairing Failed, Pairing Not Supported.
        channels.receive(L2CAPBasicFrame(channelID: 6, payload: [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07]).pdu, on: link)
        let reply = try #require(sent.all.last)
        #expect(reply.1 == L2CAPBasicFrame(channelID: 6, payload: [0x05, 0x05]))
        // Garbage and unknown channels are dropped without replies.
        let before = sent.all.count
        channels.receive([0xFF], on: link)
        channels.receive([0x01, 0x00, 0x40, 0x00, 0x00], on: link)
        #expect(sent.all.count == before)
    }
}

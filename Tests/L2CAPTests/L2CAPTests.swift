import BLECore
import HCI
import Synchronization
import Testing
@testable import L2CAP

/// Records B-frames the fixed channels send, decoded from the ACL packets.
final class SentFrames: Sendable {
    let frames = Mutex<[(UInt16, L2CAPBasicFrame)]>([])
    func record(_ packet: HCIPacket) {
        guard let acl = try? HCIACLPacket(body: packet.body), let frame = try? L2CAPBasicFrame(pdu: acl.data) else { return }
        frames.withLock { $0.append((acl.handle, frame)) }
    }
    var all: [(UInt16, L2CAPBasicFrame)] { frames.withLock { $0 } }
}

func makeChannels(connections: [UInt16] = [0x40]) -> (L2CAPFixedChannels, SentFrames) {
    let sent = SentFrames()
    let acl = ACLFlowController(send: sent.record)
    acl.configure(bufferSize: 251, bufferCount: 8)
    connections.forEach(acl.addConnection)
    return (L2CAPFixedChannels(acl: acl), sent)
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
        #expect(try LESignalingCommand(decoding: [0x14, 0x03, 0x00, 0x00]) == .unsupported(code: 0x14, identifier: 3))
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
        let (channels, sent) = makeChannels()
        let parameters = LEConnectionParameters(intervalMin: 6, intervalMax: 12, latency: 0, supervisionTimeout: 200)
        async let accepted = channels.requestConnectionParameterUpdate(parameters, on: 0x40)
        try await Task.sleep(for: .milliseconds(20))
        let (handle, request) = try #require(sent.all.last)
        #expect(handle == 0x40)
        #expect(request.channelID == L2CAPChannelID.leSignaling)
        guard case let .connectionParameterUpdateRequest(identifier, sentParameters) = try LESignalingCommand(decoding: request.payload) else {
            Issue.record("not a parameter update request")
            return
        }
        #expect(sentParameters == parameters)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: LESignalingCommand.connectionParameterUpdateResponse(identifier: identifier, accepted: true).encoded).pdu, on: 0x40)
        #expect(await accepted == .accepted)

        async let rejected = channels.requestConnectionParameterUpdate(parameters, on: 0x40)
        try await Task.sleep(for: .milliseconds(20))
        guard case let .connectionParameterUpdateRequest(second, _) = try LESignalingCommand(decoding: sent.all.last!.1.payload) else {
            Issue.record("no second request")
            return
        }
        #expect(second != identifier)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: LESignalingCommand.commandReject(identifier: second, reason: 0, data: []).encoded).pdu, on: 0x40)
        #expect(await rejected == .commandRejected(reason: 0))

        #expect(await channels.requestConnectionParameterUpdate(parameters, on: 0x40, timeout: .milliseconds(50)) == .timedOut)
    }

    @Test func pendingRequestsEndWhenTheConnectionCloses() async throws {
        let (channels, _) = makeChannels()
        async let result = channels.requestConnectionParameterUpdate(LEConnectionParameters(), on: 0x40)
        try await Task.sleep(for: .milliseconds(20))
        channels.connectionClosed(0x40)
        #expect(await result == .connectionClosed)
        #expect(await channels.requestConnectionParameterUpdate(LEConnectionParameters(), on: 0x99) == .sendFailed(.unknownConnection(0x99)))
    }

    @Test func rejectsWhatAPeripheralMustNotAccept() throws {
        let (channels, sent) = makeChannels()
        // A central asking us for parameters, an LE credit-based connection, and a malformed command.
        let fromCentral = LESignalingCommand.connectionParameterUpdateRequest(identifier: 9, parameters: LEConnectionParameters()).encoded
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: fromCentral).pdu, on: 0x40)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x14, 0x0A, 0x02, 0x00, 0x80, 0x00]).pdu, on: 0x40)
        channels.receive(L2CAPBasicFrame(channelID: 5, payload: [0x12, 0x0B, 0x08, 0x00, 0x01]).pdu, on: 0x40)
        let replies = try sent.all.map { try LESignalingCommand(decoding: $0.1.payload) }
        #expect(replies == [
            .commandReject(identifier: 9, reason: 0, data: []),
            .commandReject(identifier: 10, reason: 0, data: []),
            .commandReject(identifier: 11, reason: 0, data: []),
        ])
    }

    @Test func routesATTAndRefusesPairingWithoutASecurityManager() throws {
        let (channels, sent) = makeChannels()
        let received = Mutex<[(UInt16, [UInt8])]>([])
        channels.setHandler(for: L2CAPChannelID.attribute) { connection, payload in received.withLock { $0.append((connection, payload)) } }
        channels.receive([0x03, 0x00, 0x04, 0x00, 0x02, 0x17, 0x00], on: 0x40)
        #expect(received.withLock { $0.map(\.1) } == [[0x02, 0x17, 0x00]])
        // Pairing Request → Pairing Failed, Pairing Not Supported.
        channels.receive(L2CAPBasicFrame(channelID: 6, payload: [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07]).pdu, on: 0x40)
        let reply = try #require(sent.all.last)
        #expect(reply.1 == L2CAPBasicFrame(channelID: 6, payload: [0x05, 0x05]))
        // Garbage and unknown channels are dropped without replies.
        let before = sent.all.count
        channels.receive([0xFF], on: 0x40)
        channels.receive([0x01, 0x00, 0x40, 0x00, 0x00], on: 0x40)
        #expect(sent.all.count == before)
    }
}

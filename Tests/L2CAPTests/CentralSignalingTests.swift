import BLECore
import HCI
import Synchronization
import Testing
@testable import L2CAP

@Suite struct CentralSignalingTests {
    func centralLink(_ handle: UInt16) -> Link {
        Link(handle: handle, role: .central, peer: DeviceAddress(BluetoothAddress("C0:00:00:00:00:02")!, type: .randomDevice),
             parameters: Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 500))
    }

    func request(_ identifier: UInt8, _ parameters: LEConnectionParameters) -> [UInt8] {
        L2CAPBasicFrame(channelID: L2CAPChannelID.leSignaling,
                        payload: LESignalingCommand.connectionParameterUpdateRequest(identifier: identifier, parameters: parameters).encoded).pdu
    }

    @Test func validatesTheSpecRanges() {
        #expect(L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 6, intervalMax: 3200, latency: 0, supervisionTimeout: 3200)))
        #expect(L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 4, supervisionTimeout: 500)))
        // Interval below 7.5 ms, min above max, latency 500, timeout below 100 ms or above 32 s.
        #expect(!L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 5, intervalMax: 40, latency: 0, supervisionTimeout: 500)))
        #expect(!L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 41, intervalMax: 40, latency: 0, supervisionTimeout: 500)))
        #expect(!L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 6, intervalMax: 6, latency: 500, supervisionTimeout: 3200)))
        #expect(!L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 6, intervalMax: 6, latency: 0, supervisionTimeout: 9)))
        #expect(!L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 6, intervalMax: 6, latency: 0, supervisionTimeout: 3201)))
        // 400 ms interval, latency 4: the timeout must exceed 5 × 400 ms × 2 = 4 s.
        #expect(!L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 320, intervalMax: 320, latency: 4, supervisionTimeout: 400)))
        #expect(L2CAPFixedChannels.isValidUpdateRequest(LEConnectionParameters(intervalMin: 320, intervalMax: 320, latency: 4, supervisionTimeout: 401)))
    }

    @Test func asCentralAnswersWithTheHandlersDecision() throws {
        let link = centralLink(0x41)
        let (channels, sent, _) = makeChannels(links: [link])
        let asked = Mutex<[LEConnectionParameters]>([])
        channels.setConnectionParameterRequestHandler { requestLink, parameters in
            #expect(requestLink == link)
            asked.withLock { $0.append(parameters) }
            return parameters.latency == 0
        }
        let good = LEConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 500)
        let refusedByPolicy = LEConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 2, supervisionTimeout: 500)
        let outOfRange = LEConnectionParameters(intervalMin: 2, intervalMax: 40, latency: 0, supervisionTimeout: 500)
        channels.receive(request(1, good), on: link)
        channels.receive(request(2, refusedByPolicy), on: link)
        channels.receive(request(3, outOfRange), on: link)
        let replies = try sent.all.map { try LESignalingCommand(decoding: $0.1.payload) }
        #expect(replies == [
            .connectionParameterUpdateResponse(identifier: 1, accepted: true),
            .connectionParameterUpdateResponse(identifier: 2, accepted: false),
            .connectionParameterUpdateResponse(identifier: 3, accepted: false),
        ])
        // Out-of-range parameters never reach the handler.
        #expect(asked.withLock { $0 } == [good, refusedByPolicy])
    }

    @Test func asCentralWithoutAHandlerRejects() throws {
        let link = centralLink(0x42)
        let (channels, sent, _) = makeChannels(links: [link])
        channels.receive(request(7, LEConnectionParameters()), on: link)
        let replies = try sent.all.map { try LESignalingCommand(decoding: $0.1.payload) }
        #expect(replies == [.connectionParameterUpdateResponse(identifier: 7, accepted: false)])
    }
}

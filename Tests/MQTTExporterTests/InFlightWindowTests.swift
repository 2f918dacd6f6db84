import Testing
@testable import MQTTExporter

/// The cap on publishes inside libmosquitto: only this connection's acknowledgements open it.
@Suite struct InFlightWindowTests {
    @Test func fillsAtItsLimitAndOpensOnAnAcknowledgement() {
        var window = InFlightWindow(limit: 2)
        window.sent(1)
        #expect(!window.isFull)
        window.sent(2)
        #expect(window.isFull)
        window.acknowledged(1)
        #expect(!window.isFull && window.count == 1)
    }

    @Test func anAcknowledgementOfAnUnknownMessageDoesNotWidenIt() {
        var window = InFlightWindow(limit: 2)
        window.sent(5)
        window.sent(6)
        // A dead session's messages, acknowledged after the reconnection, and a duplicate.
        window.acknowledged(1)
        window.acknowledged(2)
        window.acknowledged(3)
        #expect(window.isFull && window.count == 2)
        window.acknowledged(5)
        window.acknowledged(5)
        #expect(window.count == 1)
        window.sent(7)
        #expect(window.isFull)
    }

    @Test func aReconnectionForgetsTheOldConnectionsMessages() {
        var window = InFlightWindow(limit: 2)
        window.sent(1)
        window.sent(2)
        window.reset()
        #expect(window.count == 0)
        window.acknowledged(1)
        #expect(window.count == 0)
    }
}

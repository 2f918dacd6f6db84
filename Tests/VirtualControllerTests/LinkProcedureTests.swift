import BLECore
import HCI
import Testing
@testable import VirtualController

@Suite struct LinkProcedureTests {
    let radio = VirtualRadio()
    static let key = [UInt8](repeating: 0x5A, count: 16)

    private func pair(centralPage2: UInt64 = 0, peripheralPage2: UInt64 = 0) async throws -> (TestHost, TestHost, UInt16, UInt16) {
        let central = try await TestHost(radio, address: "00:00:00:00:20:01")
        let peripheral = try await TestHost(radio, address: "00:00:00:00:20:02")
        try await central.initialize(page2: centralPage2)
        try await peripheral.initialize(page2: peripheralPage2)
        let (ch, ph) = try await connect(central, to: peripheral)
        return (central, peripheral, ch, ph)
    }

    private func encryptionChange(_ host: TestHost) async throws -> HCIEncryptionChangeEvent {
        let event = try await host.event("Encryption Change") { if case .encryptionChange = $0 { return true }; return false }
        guard case let .encryptionChange(change) = event else { throw TestTimeout(what: "Encryption Change") }
        return change
    }

    private func answerKeyRequest(_ peripheral: TestHost, with key: [UInt8]?, random: UInt64, ediv: UInt16) async throws {
        let event = try await peripheral.event("LTK request") { if case .le(.longTermKeyRequest) = $0 { return true }; return false }
        guard case let .le(.longTermKeyRequest(request)) = event else { return }
        #expect(request.random == random && request.ediv == ediv)
        if let key {
            #expect(try await peripheral.run(HCILELongTermKeyRequestReply(handle: request.handle, longTermKey: key)) == HCIHandleReturn(handle: request.handle))
        } else {
            #expect(try await peripheral.run(HCILELongTermKeyRequestNegativeReply(handle: request.handle)) == HCIHandleReturn(handle: request.handle))
        }
    }

    @Test func dataLengthChangeReachesBothSides() async throws {
        // LE Data Length Change is not in the default LE mask; the host default enables it.
        let (central, peripheral, ch, ph) = try await pair()
        let result = try await central.run(HCILESetDataLength(handle: ch, txOctets: 251, txTime: 2120))
        #expect(result == HCIHandleReturn(handle: ch))
        // The peripheral still transmits its default 27 octets, so the central receives 27.
        for (host, handle, tx, rx) in [(central, ch, LEDataLength.maximum, LEDataLength.minimum),
                                       (peripheral, ph, LEDataLength.minimum, LEDataLength.maximum)] {
            let event = try await host.event("data length change") { if case .le(.dataLengthChange) = $0 { return true }; return false }
            #expect(event == .le(.dataLengthChange(LEDataLengthChangeEvent(handle: handle, maxTxOctets: tx.octets, maxTxTime: tx.time,
                                                                            maxRxOctets: rx.octets, maxRxTime: rx.time))))
        }
        #expect(try await central.run(HCILESetDataLength(handle: ch, txOctets: 300, txTime: 2120)).status == .invalidParameters)
        #expect(try await central.run(HCILESetDataLength(handle: 0x0999, txOctets: 27, txTime: 328)).status == .unknownConnectionIdentifier)
    }

    @Test func encryptionSucceedsThenRefreshes() async throws {
        let (central, peripheral, ch, ph) = try await pair(peripheralPage2: HCISetEventMaskPage2.encryptionChangeV2)
        #expect(try await central.status(HCILEEnableEncryption(handle: ch, random: 0x1122, ediv: 0x33, longTermKey: Self.key)) == .success)
        try await answerKeyRequest(peripheral, with: Self.key, random: 0x1122, ediv: 0x33)
        #expect(try await encryptionChange(central) == HCIEncryptionChangeEvent(handle: ch, encryptionEnabled: 1))
        #expect(try await encryptionChange(peripheral) == HCIEncryptionChangeEvent(handle: ph, encryptionEnabled: 1, keySize: 16))
        // Only the central may start encryption.
        #expect(try await peripheral.status(HCILEEnableEncryption(handle: ph, random: 0, ediv: 0, longTermKey: Self.key)) == .commandDisallowed)

        #expect(try await central.status(HCILEEnableEncryption(handle: ch, random: 7, ediv: 8, longTermKey: Self.key)) == .success)
        try await answerKeyRequest(peripheral, with: Self.key, random: 7, ediv: 8)
        for (host, handle) in [(central, ch), (peripheral, ph)] {
            let event = try await host.event("key refresh") { if case .encryptionKeyRefreshComplete = $0 { return true }; return false }
            #expect(event == .encryptionKeyRefreshComplete(HCIEncryptionKeyRefreshCompleteEvent(handle: handle)))
        }
    }

    @Test func negativeReplyLeavesTheLinkUp() async throws {
        let (central, peripheral, ch, ph) = try await pair()
        #expect(try await central.status(HCILEEnableEncryption(handle: ch, random: 1, ediv: 2, longTermKey: Self.key)) == .success)
        try await answerKeyRequest(peripheral, with: nil, random: 1, ediv: 2)
        #expect(try await encryptionChange(central) == HCIEncryptionChangeEvent(status: .pinOrKeyMissing, handle: ch, encryptionEnabled: 0))
        #expect(central.controller.connectionHandles == [ch])
        #expect(peripheral.controller.connectionHandles == [ph])
    }

    @Test func mismatchedKeysDisconnectWithMICFailure() async throws {
        let (central, peripheral, ch, ph) = try await pair()
        #expect(try await central.status(HCILEEnableEncryption(handle: ch, random: 1, ediv: 2, longTermKey: Self.key)) == .success)
        try await answerKeyRequest(peripheral, with: [UInt8](repeating: 0x11, count: 16), random: 1, ediv: 2)
        #expect(try await central.disconnection() == HCIDisconnectionCompleteEvent(handle: ch, reason: .terminatedMICFailure))
        #expect(try await peripheral.disconnection() == HCIDisconnectionCompleteEvent(handle: ph, reason: .terminatedMICFailure))
    }

    @Test func virtualCentralEncryptsWithAPeripheralHost() async throws {
        let peripheral = try await TestHost(radio, address: "00:00:00:00:21:02")
        try await peripheral.initialize()
        try await peripheral.advertise()
        let central = radio.makeCentral(address: DeviceAddress(BluetoothAddress("C0:00:00:00:21:01")!, type: .randomDevice))
        let link = try await central.connect(to: peripheral.publicAddress)
        let ph = try await peripheral.connectionComplete().handle
        async let result = link.startEncryption(ltk: Self.key, random: 9, ediv: 10)
        try await answerKeyRequest(peripheral, with: Self.key, random: 9, ediv: 10)
        #expect(await result == .encrypted(keySize: 16))
        #expect(try await encryptionChange(peripheral) == HCIEncryptionChangeEvent(handle: ph, encryptionEnabled: 1))

        async let rejected = link.startEncryption(ltk: Self.key, random: 1, ediv: 1)
        try await answerKeyRequest(peripheral, with: nil, random: 1, ediv: 1)
        #expect(await rejected == .rejected(.pinOrKeyMissing))
    }

    private func parameterRequest(_ host: TestHost) async throws -> LERemoteConnectionParameterRequestEvent {
        let event = try await host.event("remote parameter request") { if case .le(.remoteConnectionParameterRequest) = $0 { return true }; return false }
        guard case let .le(.remoteConnectionParameterRequest(request)) = event else { throw TestTimeout(what: "parameter request") }
        return request
    }

    private func updateComplete(_ host: TestHost) async throws -> LEConnectionUpdateCompleteEvent {
        let event = try await host.event("connection update complete") { if case .le(.connectionUpdateComplete) = $0 { return true }; return false }
        guard case let .le(.connectionUpdateComplete(update)) = event else { throw TestTimeout(what: "update complete") }
        return update
    }

    @Test func peripheralUpdateGoesThroughTheCentralHost() async throws {
        let (central, peripheral, ch, ph) = try await pair()
        let wanted = LEConnectionParameters(intervalMin: 0x10, intervalMax: 0x20, latency: 1, supervisionTimeout: 0x200)
        #expect(try await peripheral.status(HCILEConnectionUpdate(handle: ph, parameters: wanted)) == .success)
        let request = try await parameterRequest(central)
        #expect(request == LERemoteConnectionParameterRequestEvent(handle: ch, parameters: wanted))
        #expect(try await central.run(HCILERemoteConnectionParameterRequestReply(handle: ch, parameters: wanted)) == HCIHandleReturn(handle: ch))
        #expect(try await updateComplete(central) == LEConnectionUpdateCompleteEvent(handle: ch, interval: 0x20, latency: 1, supervisionTimeout: 0x200))
        #expect(try await updateComplete(peripheral) == LEConnectionUpdateCompleteEvent(handle: ph, interval: 0x20, latency: 1, supervisionTimeout: 0x200))

        #expect(try await peripheral.status(HCILEConnectionUpdate(handle: ph, parameters: LEConnectionParameters())) == .success)
        _ = try await parameterRequest(central)
        #expect(try await central.run(HCILERemoteConnectionParameterRequestNegativeReply(handle: ch)) == HCIHandleReturn(handle: ch))
        let rejected = try await updateComplete(peripheral)
        #expect(rejected.status == .unacceptableConnectionParameters && rejected.interval == 0x20)
        // No request is pending any more.
        #expect(try await central.run(HCILERemoteConnectionParameterRequestNegativeReply(handle: ch)).status == .commandDisallowed)
    }

    @Test func virtualCentralAcceptsParameterRequests() async throws {
        let peripheral = try await TestHost(radio, address: "00:00:00:00:22:02")
        try await peripheral.initialize()
        try await peripheral.advertise()
        let central = radio.makeCentral(address: DeviceAddress(BluetoothAddress("C0:00:00:00:22:01")!, type: .randomDevice))
        _ = try await central.connect(to: peripheral.publicAddress)
        let ph = try await peripheral.connectionComplete().handle
        let wanted = LEConnectionParameters(intervalMin: 0x30, intervalMax: 0x40, latency: 0, supervisionTimeout: 0x300)
        #expect(try await peripheral.status(HCILEConnectionUpdate(handle: ph, parameters: wanted)) == .success)
        #expect(try await updateComplete(peripheral) == LEConnectionUpdateCompleteEvent(handle: ph, interval: 0x40, latency: 0, supervisionTimeout: 0x300))
    }
}

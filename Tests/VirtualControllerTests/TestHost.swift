import BLECore
import HCI
import Testing
import TestSupport
@testable import VirtualController

struct TestTimeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Everything a controller delivered to its host, with waiters that give up after a timeout.
typealias Inbox = Mailbox<HCITransportEvent>

extension HCITransportEvent {
    var event: HCIEvent? {
        guard case let .packet(packet) = self, packet.type == .event else { return nil }
        return try? HCIEvent(body: packet.body)
    }
    var acl: HCIACLPacket? {
        guard case let .packet(packet) = self, packet.type == .acl else { return nil }
        return try? HCIACLPacket(body: packet.body)
    }
}

extension HCIEvent {
    var connectionComplete: LEConnectionCompleteEvent? {
        if case let .le(.connectionComplete(event)) = self { return event }
        return nil
    }
    var advertisingReports: [LEAdvertisingReport]? {
        if case let .le(.advertisingReport(event)) = self { return event.reports }
        return nil
    }
    var disconnection: HCIDisconnectionCompleteEvent? {
        if case let .disconnectionComplete(event) = self { return event }
        return nil
    }
    var completedPackets: HCINumberOfCompletedPacketsEvent? {
        if case let .numberOfCompletedPackets(event) = self { return event }
        return nil
    }
    var isLE: Bool {
        if case .le = self { return true }
        return false
    }
}

/// A minimal HCI host: sends commands as packets and awaits events, every wait bounded.
final class TestHost: Sendable {
    // Only a bound for a lost event: waits end at the event, so a loaded CI machine gets slack.
    static let timeout = Duration.seconds(10)
    let controller: VirtualController
    let inbox = Inbox()

    init(_ radio: VirtualRadio, _ configuration: VirtualController.Configuration) async throws {
        controller = radio.makeController(configuration: configuration)
        let inbox = self.inbox
        try await controller.open { inbox.deliver($0) }
    }

    convenience init(_ radio: VirtualRadio, address: String, configure: (inout VirtualController.Configuration) -> Void = { _ in }) async throws {
        var configuration = VirtualController.Configuration(address: BluetoothAddress(address) ?? .zero)
        configure(&configuration)
        try await self.init(radio, configuration)
    }

    var publicAddress: DeviceAddress { DeviceAddress(controller.configuration.address, type: .publicDevice) }

    func send(_ packet: HCIPacket) throws { try controller.send(packet) }

    func event(_ what: String, timeout: Duration = TestHost.timeout,
               where match: @escaping @Sendable (HCIEvent) -> Bool) async throws -> HCIEvent {
        guard let item = await inbox.next(timeout: timeout, where: { $0.event.map(match) ?? false }), let event = item.event else {
            throw TestTimeout(what: what)
        }
        return event
    }

    func acl(timeout: Duration = TestHost.timeout) async throws -> HCIACLPacket {
        guard let item = await inbox.next(timeout: timeout, where: { $0.acl != nil }), let packet = item.acl else {
            throw TestTimeout(what: "ACL data")
        }
        return packet
    }

    func commandComplete(_ packet: HCIPacket, opcode: HCIOpcode) async throws -> HCICommandCompleteEvent {
        try send(packet)
        let event = try await self.event("Command Complete for \(opcode)") {
            if case let .commandComplete(complete) = $0 { return complete.opcode == opcode }
            return false
        }
        guard case let .commandComplete(complete) = event else { throw TestTimeout(what: "Command Complete") }
        return complete
    }

    /// Runs a Command Complete command and decodes its return parameters.
    @discardableResult
    func run<C: HCICommand>(_ command: C) async throws -> C.ReturnParameters {
        let complete = try await commandComplete(command.packet, opcode: C.opcode)
        return try C.ReturnParameters(decoding: complete.returnParameters)
    }

    /// The status byte of a Command Complete (for errors, where the rest may be absent).
    func completeStatus<C: HCICommand>(_ command: C) async throws -> HCIStatus {
        let complete = try await commandComplete(command.packet, opcode: C.opcode)
        return HCIStatus(rawValue: complete.returnParameters.first ?? 0xFF)
    }

    /// Sends a Command Status command and returns the status.
    func status<C: HCICommand>(_ command: C) async throws -> HCIStatus {
        try send(command.packet)
        let event = try await self.event("Command Status for \(C.opcode)") {
            if case let .commandStatus(status) = $0 { return status.opcode == C.opcode }
            return false
        }
        guard case let .commandStatus(status) = event else { throw TestTimeout(what: "Command Status") }
        return status.status
    }

    /// Reset and the masks a typical LE host sets.
    func initialize(leMask: UInt64 = HCILESetEventMask.hostDefault.mask, page2: UInt64 = 0) async throws {
        #expect(try await run(HCIReset()).status == .success)
        #expect(try await run(HCISetEventMask.leHostDefault).status == .success)
        #expect(try await run(HCISetEventMaskPage2(mask: page2)).status == .success)
        #expect(try await run(HCILESetEventMask(mask: leMask)).status == .success)
    }

    func advertise(type: LEAdvertisingType = .connectableUndirected, data: [UInt8] = [0x02, 0x01, 0x06],
                   scanResponse: [UInt8] = [], interval: UInt16 = 0x00A0, ownRandom: BluetoothAddress? = nil) async throws {
        if let ownRandom { #expect(try await run(HCILESetRandomAddress(address: ownRandom)).status == .success) }
        #expect(try await run(HCILESetAdvertisingParameters(intervalMin: interval, intervalMax: interval, type: type,
                                                             ownAddressType: ownRandom == nil ? .publicDevice : .randomDevice)).status == .success)
        #expect(try await run(HCILESetAdvertisingData(payload: LELegacyAdvertisingPayload(data)!)).status == .success)
        #expect(try await run(HCILESetScanResponseData(payload: LELegacyAdvertisingPayload(scanResponse)!)).status == .success)
        #expect(try await run(HCILESetAdvertisingEnable(enable: true)).status == .success)
    }

    func scan(active: Bool, filterDuplicates: Bool = false) async throws {
        #expect(try await run(HCILESetScanParameters(active: active)).status == .success)
        #expect(try await run(HCILESetScanEnable(enable: true, filterDuplicates: filterDuplicates)).status == .success)
    }

    func connectionComplete() async throws -> LEConnectionCompleteEvent {
        let event = try await self.event("LE Connection Complete") { $0.connectionComplete != nil }
        guard let complete = event.connectionComplete else { throw TestTimeout(what: "LE Connection Complete") }
        return complete
    }

    func disconnection() async throws -> HCIDisconnectionCompleteEvent {
        let event = try await self.event("Disconnection Complete") { $0.disconnection != nil }
        guard let disconnection = event.disconnection else { throw TestTimeout(what: "Disconnection Complete") }
        return disconnection
    }

    /// A round trip through the controller: everything it generated before is now in the inbox.
    func sync() async throws {
        _ = try await run(HCIReadBDADDR())
    }
}

/// Connects `central` to advertising `peripheral`; returns (central handle, peripheral handle).
func connect(_ central: TestHost, to peripheral: TestHost,
             parameters: LEConnectionParameters = LEConnectionParameters()) async throws -> (UInt16, UInt16) {
    try await peripheral.advertise()
    #expect(try await central.status(HCILECreateConnection(peer: peripheral.publicAddress, parameters: parameters)) == .success)
    let c = try await central.connectionComplete()
    let p = try await peripheral.connectionComplete()
    #expect(c.status == .success && p.status == .success)
    return (c.handle, p.handle)
}

/// A basic-header L2CAP PDU with `payload` on `channel`.
func l2cap(_ payload: [UInt8], channel: UInt16 = 0x0004) -> [UInt8] {
    var writer = ByteWriter()
    writer.append(UInt16(payload.count))
    writer.append(channel)
    writer.append(contentsOf: payload)
    return writer.bytes
}

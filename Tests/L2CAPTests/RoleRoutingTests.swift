import BLECore
import HCI
import Synchronization
import Testing
import TestSupport
@testable import L2CAP

/// The peripheral and central roles of one controller share the fixed channels: each role's
/// handler gets its own links' PDUs, and a role-less handler serves a role without one.
@Suite struct RoleRoutingTests {
    static func link(_ handle: UInt16, _ role: HCIRole) -> Link {
        Link(handle: handle, role: role, peer: DeviceAddress(BluetoothAddress("C0:00:00:00:00:0\(handle & 7)")!, type: .randomDevice),
             parameters: Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 500))
    }

    static let attFrame: [UInt8] = L2CAPBasicFrame.pdu(channelID: L2CAPChannelID.attribute, payload: [0x0A, 0x03, 0x00])

    @Test func eachRoleGetsItsOwnLinks() {
        let peripheralLink = Self.link(0x40, .peripheral), centralLink = Self.link(0x41, .central)
        let (channels, _, _) = makeChannels(links: [peripheralLink, centralLink])
        let peripheralSide = Recorder<LinkID>(), centralSide = Recorder<LinkID>()
        channels.setHandler(for: L2CAPChannelID.attribute, role: .peripheral) { link, _ in peripheralSide.append(link.id) }
        channels.setHandler(for: L2CAPChannelID.attribute, role: .central) { link, _ in centralSide.append(link.id) }
        channels.receive(Self.attFrame, on: peripheralLink)
        channels.receive(Self.attFrame, on: centralLink)
        #expect(peripheralSide.all == [peripheralLink.id])
        #expect(centralSide.all == [centralLink.id])
    }

    @Test func aRoleLessHandlerServesRolesWithoutTheirOwn() {
        let peripheralLink = Self.link(0x40, .peripheral), centralLink = Self.link(0x41, .central)
        let (channels, _, _) = makeChannels(links: [peripheralLink, centralLink])
        let shared = Recorder<LinkID>(), centralSide = Recorder<LinkID>()
        channels.setHandler(for: L2CAPChannelID.attribute) { link, _ in shared.append(link.id) }
        channels.setHandler(for: L2CAPChannelID.attribute, role: .central) { link, _ in centralSide.append(link.id) }
        channels.receive(Self.attFrame, on: peripheralLink)
        channels.receive(Self.attFrame, on: centralLink)
        #expect(shared.all == [peripheralLink.id])
        #expect(centralSide.all == [centralLink.id])
        // Once the central role leaves, its links fall back to the role-less handler.
        channels.removeHandler(for: L2CAPChannelID.attribute, role: .central)
        channels.receive(Self.attFrame, on: centralLink)
        #expect(shared.all == [peripheralLink.id, centralLink.id])
    }

    @Test func pairingIsRefusedOnARoleWithoutASecurityManager() async {
        let peripheralLink = Self.link(0x40, .peripheral), centralLink = Self.link(0x41, .central)
        let (channels, sent, _) = makeChannels(links: [peripheralLink, centralLink])
        let centralSMP = Recorder<LinkID>()
        channels.setHandler(for: L2CAPChannelID.securityManager, role: .central) { link, _ in centralSMP.append(link.id) }
        let pairingRequest = L2CAPBasicFrame.pdu(channelID: L2CAPChannelID.securityManager, payload: [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])
        channels.receive(pairingRequest, on: centralLink)
        channels.receive(pairingRequest, on: peripheralLink)
        await sent.wait(for: 1)
        #expect(centralSMP.all == [centralLink.id])
        // Pairing Failed, Pairing Not Supported, on the peripheral link's handle only.
        #expect(sent.all.map(\.0) == [0x40])
        #expect(sent.all.first?.1.payload == [0x05, 0x05])
    }

    @Test func oneInstancePerLinkTable() {
        let links = LinkTable()
        let acl = ACLFlowController(clock: ManualClock(), send: { _ in true })
        let first = L2CAPFixedChannels(acl: acl, clock: ManualClock())
        let second = L2CAPFixedChannels(acl: acl, clock: ManualClock())
        #expect(first.attach(to: links))
        #expect(first.attach(to: links))
        #expect(!second.attach(to: links))
        // Another host's table is free for the second.
        #expect(second.attach(to: LinkTable()))
    }
}

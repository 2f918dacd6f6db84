import BLECore
import Logging
import Synchronization

/// Everything the controller sends, handled on the transport's reader context in controller order.
///
/// Link bookkeeping happens here, synchronously, so it is ordered with the ACL data around it:
/// a link exists (and its observers have set up) before its first PDU is delivered; a closed link's
/// state is gone before a new link can reuse its handle; Encryption Change updates the link's
/// security before the next PDU of that link reaches L2CAP. Number Of Completed Packets goes
/// straight to the ACL flow controller. Command answers and faults go to the `HCIHost` actor;
/// link and controller events go up to GAP on the host's event stream.
final class HCIInboundRouter: Sendable {
    /// What the router hands to the host actor.
    enum HostInput: Sendable {
        case answer(HCIOpcode, credits: UInt8, [UInt8])
        case hardwareError(UInt8)
        case stalled(HCITransportError)
        case closed(HCITransportError?)
    }

    let links: LinkTable
    let acl: ACLFlowController
    private let events: HostEventBroadcaster
    private let hostInput = Mutex<AsyncStream<HostInput>.Continuation?>(nil)
    private let logger: Logger

    init(links: LinkTable, acl: ACLFlowController, events: HostEventBroadcaster, logger: Logger) {
        self.links = links
        self.acl = acl
        self.events = events
        self.logger = logger
    }

    func attach(_ input: AsyncStream<HostInput>.Continuation) {
        hostInput.withLock { $0 = input }
    }

    private func toHost(_ input: HostInput) {
        let sink = hostInput.withLock { $0 }
        sink?.yield(input)
        if case .closed = input { sink?.finish() }
    }

    func process(_ event: HCITransportEvent) {
        switch event {
        case let .packet(packet):
            switch packet.type {
            case .event: processEvent(packet)
            case .acl: processACL(packet)
            case .command, .sco, .iso:
                logger.debug("ignoring inbound \(packet.type) packet of \(packet.body.count) bytes")
            }
        case let .stalled(error):
            toHost(.stalled(error))
        case let .refused(error):
            logger.error("\(error)")
        case let .closed(error):
            toHost(.closed(error))
        }
    }

    /// Closes every open link (controller reset, transport gone) and tells observers and GAP.
    func closeAllLinks(reason: HCIStatus) {
        for link in links.beginReset(reason: reason) {
            acl.remove(link)
            links.notifyClosed(link, reason: reason)
            events.yield(.linkClosed(link, reason: reason))
        }
    }

    // MARK: Events

    private func processEvent(_ packet: HCIPacket) {
        if let entry = HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: packet.body) {
            // One per notification on a single-buffer controller: no event value, no array.
            acl.completePackets(entry)
            return
        }
        let event: HCIEvent
        do {
            event = try HCIEvent(body: packet.body)
        } catch {
            logger.warning("dropping malformed event: \(error) [\(packet.body.hexString)]")
            return
        }
        switch event {
        case let .commandComplete(complete):
            toHost(.answer(complete.opcode, credits: complete.numHCICommandPackets, complete.returnParameters))
        case let .commandStatus(status):
            toHost(.answer(status.opcode, credits: status.numHCICommandPackets, [status.status.rawValue]))
        case let .numberOfCompletedPackets(completed):
            acl.completePackets(completed.entries)
        case let .hardwareError(code):
            toHost(.hardwareError(code))
        case let .dataBufferOverflow(linkType):
            logger.error("controller reports a data buffer overflow (link type \(linkType)): host and controller disagree on credits")
        case let .le(.connectionComplete(complete)) where complete.status.isSuccess:
            opened(Link(complete), event: event)
        case let .disconnectionComplete(complete) where complete.status.isSuccess:
            guard let link = links.link(handle: complete.handle) else {
                logger.warning("Disconnection Complete for handle 0x\(String(complete.handle, radix: 16)), which has no open link; ignored")
                return
            }
            // ACL first: once it forgets the link, no thread can put another of its packets on the wire.
            acl.remove(link)
            _ = links.close(handle: complete.handle, reason: complete.reason)
            links.notifyClosed(link, reason: complete.reason)
            events.yield(.linkClosed(link, reason: complete.reason))
        case let .encryptionChange(change):
            withLink(change.handle, event) { link in
                guard change.status.isSuccess else {
                    logger.notice("\(link): encryption failed: \(change.status)")
                    return
                }
                applyEncryption(on: link, enabled: change.encryptionEnabled != 0, keySize: change.keySize)
            }
        case let .encryptionKeyRefreshComplete(refresh):
            withLink(refresh.handle, event) { link in
                guard refresh.status.isSuccess else { return }
                applyEncryption(on: link, enabled: true, keySize: nil)
            }
        case let .le(.connectionUpdateComplete(update)):
            withLink(update.handle, event) { link in
                guard update.status.isSuccess else { return }
                link.update { $0.parameters = Link.Parameters(interval: update.interval, latency: update.latency,
                                                              supervisionTimeout: update.supervisionTimeout) }
            }
        case let .le(.dataLengthChange(change)):
            withLink(change.handle, event) { link in
                link.update { $0.dataLength = Link.DataLength(maxTxOctets: change.maxTxOctets, maxRxOctets: change.maxRxOctets) }
            }
        case let .readRemoteVersionComplete(version):
            withLink(version.handle, event) { link in
                guard version.status.isSuccess else { return }
                link.update { $0.remoteVersion = version }
            }
        case let .le(.longTermKeyRequest(request)):
            withLink(request.handle, event) { _ in }
        case let .le(.remoteConnectionParameterRequest(request)):
            withLink(request.handle, event) { _ in }
        case let .unknown(code, _):
            logger.debug("ignoring unknown event 0x\(String(code, radix: 16))")
        case let .le(.unknown(subevent, _)):
            logger.debug("ignoring unknown LE subevent 0x\(String(subevent, radix: 16))")
        default:
            events.yield(.controllerEvent(event))
        }
    }

    private func opened(_ link: Link, event: HCIEvent) {
        guard links.open(link) else {
            logger.warning("connection on handle 0x\(String(link.handle, radix: 16)) reported while a reset is under way or the handle is still open; ignored")
            return
        }
        acl.add(link)
        links.notifyOpened(link)
        events.yield(.linkOpened(link))
    }

    /// Applies `body` to the open link on `handle` and passes the event up; an event for a handle
    /// with no open link is logged and dropped, never applied to whatever link comes next.
    private func withLink(_ handle: UInt16, _ event: HCIEvent, _ body: (Link) -> Void) {
        guard let link = links.link(handle: handle) else {
            logger.warning("event 0x\(String(event.code, radix: 16)) for handle 0x\(String(handle, radix: 16)), which has no open link; ignored")
            return
        }
        body(link)
        events.yield(.linkEvent(link, event))
    }

    private func applyEncryption(on link: Link, enabled: Bool, keySize: UInt8?) {
        if let security = link.encryptionChanged(enabled: enabled, controllerKeySize: keySize) {
            logger.info("\(link.id): security is now \(security)")
        } else {
            logger.warning("\(link.id): the controller reports encryption no key was supplied for on this link; its security stays \(link.security)")
        }
    }

    // MARK: ACL

    private func processACL(_ packet: HCIPacket) {
        let fragment: HCIACLPacket
        do {
            fragment = try HCIACLPacket(body: packet.body)
        } catch {
            logger.warning("dropping malformed ACL packet: \(error)")
            return
        }
        guard let (link, outcome) = links.reassemble(fragment) else {
            logger.warning("dropping ACL data for handle 0x\(String(fragment.handle, radix: 16)), which has no open link")
            return
        }
        switch outcome {
        case let .complete(pdu):
            if !links.deliver(pdu, on: link) {
                logger.debug("no L2CAP layer attached; dropping \(pdu.count) bytes from \(link.id)")
            }
        case .incomplete: break
        case let .dropped(reason): logger.warning("\(link.id): dropped malformed L2CAP fragments: \(reason)")
        }
    }
}

import ATT
import BLECore
import L2CAP
import Synchronization
import TestSupport
import VirtualController

/// Values collected as they arrive (notifications, indications), with barriers.
public typealias Collected<Element: Sendable> = Recorder<Element>

/// A raw ATT client on a scripted central: sends requests and separates responses from
/// notifications and indications (which it confirms, like a real client).
public final class ATTTestClient: Sendable {
    public let link: VirtualLink
    private let responses = Mailbox<ATTPDU>()
    public let notifications = Collected<(handle: UInt16, value: [UInt8])>()
    public let indications = Collected<(handle: UInt16, value: [UInt8])>()
    /// The tuples of each Multiple Handle Value Notification, in arrival order.
    public let multipleNotifications = Collected<[ATTHandleValue]>()
    /// SMP PDUs from the peripheral (the test plays the central's side of pairing with them).
    public let smp = Collected<[UInt8]>()
    /// LE signaling commands from the peripheral (connection parameter update requests).
    public let signaling = Collected<[UInt8]>()
    public let confirmIndications: Mutex<Bool>
    private let reader: Mutex<Task<Void, Never>?> = Mutex(nil)

    public init(link: VirtualLink, confirmIndications: Bool = true) {
        self.link = link
        self.confirmIndications = Mutex(confirmIndications)
        let task = Task { [link, weak self] in
            for await pdu in link.received {
                if let frame = try? L2CAPBasicFrame(pdu: pdu), frame.channelID == L2CAPChannelID.securityManager {
                    self?.smp.append(frame.payload)
                    continue
                }
                if let frame = try? L2CAPBasicFrame(pdu: pdu), frame.channelID == L2CAPChannelID.leSignaling {
                    self?.signaling.append(frame.payload)
                    continue
                }
                guard let frame = try? L2CAPBasicFrame(pdu: pdu), frame.channelID == L2CAPChannelID.attribute,
                      let att = try? ATTPDU.decode(frame.payload) else { continue }
                switch att {
                case let .handleValueNotification(handle, value):
                    self?.notifications.append((handle, value))
                case let .multipleHandleValueNotification(tuples):
                    self?.multipleNotifications.append(tuples)
                case let .handleValueIndication(handle, value):
                    if self?.confirmIndications.withLock({ $0 }) == true { self?.send(.handleValueConfirmation) }
                    self?.indications.append((handle, value))
                default:
                    self?.deliver(att)
                }
            }
        }
        reader.withLock { $0 = task }
    }

    deinit { reader.withLock { $0?.cancel() } }

    public func send(_ pdu: ATTPDU) {
        try? link.send(l2capPDU: L2CAPBasicFrame.pdu(channelID: L2CAPChannelID.attribute, payload: pdu.encode()))
    }

    public func sendSMP(_ payload: [UInt8]) {
        try? link.send(l2capPDU: L2CAPBasicFrame.pdu(channelID: L2CAPChannelID.securityManager, payload: payload))
    }

    public func sendRaw(_ payload: [UInt8]) {
        try? link.send(l2capPDU: L2CAPBasicFrame.pdu(channelID: L2CAPChannelID.attribute, payload: payload))
    }

    private func deliver(_ pdu: ATTPDU) { responses.deliver(pdu) }

    /// The next response, or `nil` after `timeout` (a safety limit, so a missing answer fails the
    /// test instead of hanging it).
    public func nextResponse(timeout: Duration = .seconds(3)) async -> ATTPDU? { await responses.next(timeout: timeout) }

    public func request(_ pdu: ATTPDU, timeout: Duration = .seconds(3)) async -> ATTPDU? {
        send(pdu)
        return await nextResponse(timeout: timeout)
    }
}

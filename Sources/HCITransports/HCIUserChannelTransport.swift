#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CBluetoothShim
import HCI
import Logging

/// Exclusive raw access to a local adapter through the Linux HCI user channel (`hci:N`).
/// The kernel delivers one H4 packet (indicator included) per read and takes one per write.
///
/// Checked `Sendable` (no `@unchecked` needed): all mutable state lives in `LinkLifecycle`'s mutex.
public final class HCIUserChannelTransport: HCITransport, Sendable {
    public let index: UInt16
    public let name: String
    private let logger: Logger
    private let lifecycle: LinkLifecycle
    private let options: TransportOptions

    public init(index: UInt16, logger: Logger, options: TransportOptions = TransportOptions()) {
        self.options = options
        self.index = index
        self.name = TransportSpecification.hciUserChannel(index: index).description
        self.logger = logger
        self.lifecycle = LinkLifecycle(name: name)
    }

    private var device: String { "hci\(index)" }

    private var busyHint: String {
        "\(device) is up or owned by bluetoothd: run `sudo systemctl stop bluetooth` and `sudo hciconfig \(device) down` (or `sudo btmgmt --index \(index) power off`), then retry"
    }

    private static let permissionHint =
        "run as root, or grant CAP_NET_ADMIN and CAP_NET_RAW (`sudo setcap cap_net_admin,cap_net_raw+ep $(which blesensord)` or AmbientCapabilities= in the systemd unit)"

    public func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        _ = try lifecycle.beginOpen()
        let link: DescriptorLink
        do {
            let fd = try openChannel()
            link = try DescriptorLink(
                descriptor: fd, name: name, framing: .datagram, isSocket: false,
                endOfStreamMessage: "\(device) was removed or reset by the kernel", options: options)
        } catch {
            lifecycle.failOpen()
            throw error
        }
        try lifecycle.finishOpen(link, handler: handler)
        logger.info("opened HCI user channel on \(device)")
    }

    public func send(_ packet: HCIPacket) throws(HCITransportError) {
        try lifecycle.link().send(packet.h4Bytes)
    }

    public func discardQueuedACL(handle: UInt16) { lifecycle.discardQueuedACL(handle: handle) }
    public func discardQueuedPackets() { lifecycle.discardQueuedPackets() }
    public func combiningWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try lifecycle.combiningWrites(body) }

    public func close() {
        lifecycle.close()
    }

    private func openChannel() throws(HCITransportError) -> Int32 {
        let fd = bls_hci_socket()
        guard fd >= 0 else { throw mapError(errno, operation: "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)") }

        // bind() only says EBUSY; checking HCI_UP first lets us name the likely culprit.
        var isUp: Int32 = 0
        if bls_hci_device_is_up(fd, index, &isUp) == 0 {
            if isUp != 0 {
                closeDescriptor(fd)
                throw .adapterBusy(device, hint: busyHint)
            }
        } else if errno == ENODEV {
            closeDescriptor(fd)
            throw .deviceNotFound(device)
        }

        guard bls_hci_bind_user_channel(fd, index) == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw mapError(code, operation: "bind \(device) user channel")
        }
        return fd
    }

    private func mapError(_ code: Int32, operation: String) -> HCITransportError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            return .bluetoothUnsupported("\(operation) failed: \(SystemCall.message(code)) (errno \(code))")
        case ENODEV:
            return .deviceNotFound(device)
        case EBUSY, EALREADY:
            return .adapterBusy(device, hint: busyHint)
        case EPERM, EACCES:
            return .permissionDenied(device, hint: Self.permissionHint)
        default:
            return SystemCall.failure(operation, errno: code)
        }
    }
}

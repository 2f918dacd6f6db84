import Glibc
import HCI
import Logging
import Testing

@testable import HCITransports

@Suite struct HCIUserChannelTransportTests {
    /// CI kernels have no Bluetooth (socket() fails with EAFNOSUPPORT); a kernel with Bluetooth
    /// has no hci99 (ENODEV). Either way the user must get the mapped, actionable error.
    @Test func openWithoutUsableAdapterGivesActionableError() async {
        let transport = HCIUserChannelTransport(index: 99, logger: Logger(label: "test"))
        #expect(transport.name == "hci:99")
        do {
            try await transport.open { _ in }
            Issue.record("opening hci:99 unexpectedly succeeded")
            transport.close()
        } catch {
            switch error {
            case let .bluetoothUnsupported(detail):
                #expect(detail.contains("socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) failed"))
                #expect(detail.contains("errno \(EAFNOSUPPORT)"))
                #expect(error.description.contains("this kernel has no Bluetooth support"))
                #expect(error.description.contains("sudo modprobe bluetooth"))
                #expect(error.description.contains("tcp:HOST:PORT or virtual"))
            case let .adapterNotFound(device, _):
                #expect(device == "hci99")
            default:
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(throws: HCITransportError.notOpen("hci:99")) {
            try transport.send(HCIPacket(type: .command, body: [0x03, 0x0C, 0x00]))
        }
    }
}

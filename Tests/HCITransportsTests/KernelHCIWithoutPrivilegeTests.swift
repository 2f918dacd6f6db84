import Glibc
import HCI
import Logging
import Testing

@testable import HCITransports

/// Run as an unprivileged user (the hci group runs it under setpriv): the user channel needs
/// CAP_NET_ADMIN, and the kernel's EPERM must become the error that says how to grant it.
@Suite(.enabled(if: KernelHCI.index != nil && getuid() != 0, "an unprivileged run with BLESENSOR_TEST_HCI_USER_CHANNEL set (Tests/KernelVM)"))
struct KernelHCIWithoutPrivilegeTests {
    @Test func openingWithoutCapNetAdminSaysHowToGrantIt() async throws {
        let transport = HCIUserChannelTransport(index: try #require(KernelHCI.index), logger: Logger(label: "kernel-hci-test"))
        do {
            try await transport.open { _ in }
            transport.close()
            Issue.record("an unprivileged process opened the user channel")
        } catch {
            guard case let .permissionDenied(device, hint) = error else {
                Issue.record("expected permissionDenied, got \(error)")
                return
            }
            #expect(device == "hci\(KernelHCI.index ?? 0)")
            #expect(hint.contains("CAP_NET_ADMIN"))
        }
    }
}

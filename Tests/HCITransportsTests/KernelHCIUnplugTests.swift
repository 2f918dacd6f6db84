import Foundation
import Glibc
import HCI
import Logging
import Testing

@testable import HCITransports

/// The controller removed under an open user channel (btvirt killed, as when a USB dongle is
/// pulled). A run of its own, after the other kernel suites: it takes the controller away.
@Suite(.enabled(if: KernelHCI.index != nil && KernelHCI.btvirtPID != nil,
                "set BLESENSOR_TEST_HCI_USER_CHANNEL and BLESENSOR_TEST_BTVIRT_PID (Tests/KernelVM)"))
struct KernelHCIUnplugTests {
    @Test func aControllerRemovedUnderTheLinkClosesItWithTheReason() async throws {
        let (transport, recorder) = try await KernelHCI.open()
        defer { transport.close() }  // nothing to wait for: the controller is gone
        try transport.send(KernelHCI.command(0x1009))
        _ = await recorder.wait(timeout: KernelHCI.liveness) { KernelHCI.answered($0).count >= 1 }
        // btvirt gone: the kernel unregisters its controllers (as when a USB dongle is pulled).
        #expect(kill(try #require(KernelHCI.btvirtPID), SIGKILL) == 0)
        let events = await recorder.wait(timeout: KernelHCI.liveness) { KernelHCI.closed($0) }
        let closures = recorder.closures
        #expect(closures.count == 1)
        guard case let .disconnected(reason)?? = closures.first else {
            Issue.record("expected a lost link, got \(closures) after \(events.count) events")
            return
        }
        #expect(reason.contains("hci\(KernelHCI.index ?? 0) was removed or reset by the kernel"), "\(reason)")
        #expect(throws: HCITransportError.self) { try transport.send(KernelHCI.command(0x1009)) }
    }
}

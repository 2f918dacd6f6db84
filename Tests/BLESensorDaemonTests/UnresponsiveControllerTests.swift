import GAP
import HCI
import Peripheral
import Testing
@testable import BLESensorDaemon

/// A controller that answers nothing even after resets gets advice a restart cannot give.
@Suite struct UnresponsiveControllerTests {
    @Test func aTimeoutThatOutlivedEveryResetSaysHowToHealTheController() {
        let timeout = HCIHostError.commandTimeout(.reset, milliseconds: 10_000)
        for error in [DaemonError.controller(timeout), .peripheralManager(.controller(timeout))] {
            #expect(error.description.hasPrefix("controller did not answer"))
            #expect(error.description.contains("reboot, or rebind its driver"))
        }
        #expect(UnresponsiveController.explains(ControllerLoss.resetsFailed(timeout)))
    }

    @Test func otherFailuresKeepTheirOwnMessage() {
        let refused = HCIHostError.commandFailed(.leSetEventMask, .invalidParameters)
        #expect(DaemonError.controller(refused).description == refused.description)
        #expect(!UnresponsiveController.explains(ControllerLoss.transportClosed(nil)))
    }
}

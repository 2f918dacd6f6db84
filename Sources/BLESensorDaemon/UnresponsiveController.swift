import GAP
import HCI
import Peripheral

/// A controller that answers nothing even after the host's resets. On a Raspberry Pi's UART the
/// link itself can wedge, and HCI Reset travels over that link: only power (BT_REG_ON, toggled at
/// boot) or the driver's setup heals it (raspberrypi/linux#2251). Restarting the daemon does not.
enum UnresponsiveController {
    static let advice = "a controller that answers nothing even after resets is wedged (a Raspberry Pi's UART link can be): "
        + "reboot, or rebind its driver (README, \"A controller that never answers\")"

    static func explains(_ error: HCIHostError) -> Bool {
        if case .commandTimeout = error { return true }
        return false
    }

    static func explains(_ loss: ControllerLoss) -> Bool {
        if case let .resetsFailed(error) = loss { return explains(error) }
        return false
    }
}

import HCI

/// A link opening or closing, as the synchronous connection observer sees it.
public enum ConnectionChange: Sendable {
    case opened(LEConnection)
    case closed(LEConnection, reason: HCIStatus)
}

/// What the host reports to the layers above (GAP), in controller order. ACL data does not come
/// this way: it goes synchronously to the `LinkTable`'s data handler (L2CAP).
public enum HCIHostEvent: Sendable {
    /// A connection completed; the link is registered and its synchronous observers have seen it.
    case linkOpened(Link)
    /// A link closed (Disconnection Complete, a controller reset, the transport gone).
    case linkClosed(Link, reason: HCIStatus)
    /// An event about an open link (parameter update, data length, encryption, remote version,
    /// LTK request, remote parameter request); the link already reflects what it changed.
    case linkEvent(Link, HCIEvent)
    /// A controller event that is not about an open link (advertising reports, failed connections…).
    case controllerEvent(HCIEvent)
    /// The controller is being reset after a fault; every link was closed first.
    case controllerResetting(reason: HCIHostError)
    /// Recovery finished; the controller is initialised again and upper layers must reapply their state.
    case controllerRecovered(ControllerInfo)
    /// Recovery failed repeatedly; the controller is unusable.
    case controllerFailed(HCIHostError)
    /// The link to the controller is gone (`nil` after an orderly shutdown).
    case transportClosed(HCITransportError?)
}

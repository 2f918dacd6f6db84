/// What the daemon provides to the control server. Called on the server's own thread, once per
/// `status` request: it must return quickly and never block (read a snapshot the daemon keeps up to
/// date, e.g. under a short lock), or every control client waits.
public protocol ControlHandler: Sendable {
    func status() -> StatusSnapshot
}

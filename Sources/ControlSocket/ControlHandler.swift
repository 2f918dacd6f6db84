/// What the daemon provides to the control server. Every method is called on the server's own
/// thread and must return quickly without blocking (read state the daemon keeps current under a
/// short lock), or every control client waits. Work that has to wait, such as a bond store write,
/// is started elsewhere and answered through the `DeferredReply` it receives.
public protocol ControlHandler: Sendable {
    /// `status`.
    func status() -> StatusSnapshot
    /// `bonds`: from the Security Manager's cached bonds.
    func bonds() -> Result<[BondStatus], ControlFailure>
    /// `remove-bond`: complete `reply` from any thread once the store has forgotten the bond. An
    /// answer that does not come within `ControlServerOptions.replyTimeout` is replaced by an error.
    func removeBond(_ address: BondAddress, reply: DeferredReply<BondStatus>)
    /// `open-pairing-window`: opens the window (or explains why it does not apply); the pairing state after it.
    func openPairingWindow(seconds: Int) -> Result<PairingStatus, ControlFailure>
    /// `pairing`: the pairing state with the passkey, for an administrator.
    func pairing() -> Result<PairingStatus, ControlFailure>
}

/// What to do when the bond store is full and a new central pairs.
public enum BondLimitPolicy: Sendable, Equatable {
    /// Refuse the pairing (Pairing Failed: Unspecified Reason) until a bond is removed.
    case refuseNew
    /// Forget the bond used longest ago whose central is not connected.
    case replaceLeastRecentlyUsed
}

extension SecurityManager {
    public struct Configuration: Sendable {
        public var policy = SecurityPolicy()
        /// Bonds kept at most (nil: no limit).
        public var maximumBonds: Int? = nil
        public var bondLimitPolicy = BondLimitPolicy.replaceLeastRecentlyUsed
        /// Whether a pairing whose key is weaker than the peer's existing bond may replace it.
        public var allowWeakerRepairing = true
        /// Send a Security Request as soon as a central connects (bonded centrals then re-encrypt at once).
        public var sendSecurityRequest = false
        /// Central role: what the manager itself does when a peripheral sends a Security Request
        /// (it is reported as `SecurityEvent.securityRequested` in every case).
        public var respondToSecurityRequests = SecurityRequestResponse.encryptOrPair

        public init() {}
    }
}

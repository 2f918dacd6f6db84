/// How rfkill keeps an adapter's radio off.
public enum RfkillBlock: Sendable, Equatable, CustomStringConvertible {
    /// By software (`rfkill block`, airplane mode, a state restored at boot): can be cleared.
    case soft
    /// By a hardware switch or the firmware: no software can clear it.
    case hard
    /// The kernel said ERFKILL but the switch could not be read.
    case unknown

    public var description: String {
        switch self {
        case .soft: return "soft-blocked"
        case .hard: return "hard-blocked"
        case .unknown: return "blocked"
        }
    }
}

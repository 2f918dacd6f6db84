import FoundationEssentials

/// What `blesensor bonds list` and `blesensor pair` print, and the security lines of `status`.
public enum SecurityFormatter {
    /// A table of the bonds, or a sentence when there are none.
    public static func bondsText(_ bonds: [BondStatus]) -> String {
        guard !bonds.isEmpty else { return "no bonds: no central has bonded with this blesensord\n" }
        let header = ["address", "type", "key", "authenticated", "secure connections", "privacy (IRK)", "created",
                      "last seen", "connected"]
        let rows = bonds.map { bond in
            [bond.address, bond.addressType, "\(bond.keySize)", yesNo(bond.authenticated), yesNo(bond.secureConnections),
             yesNo(bond.hasIRK), date(bond.createdAt), date(bond.lastSeen), yesNo(bond.connected)]
        }
        let lines = ["bonds (\(bonds.count)):"] + Table.render([header] + rows, indent: "  ")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `blesensor bonds list --json`: `{"bonds": [...]}`, an object so fields can be added beside the list.
    public static func bondsJSON(_ bonds: [BondStatus]) -> String {
        struct Document: Encodable { var bonds: [BondStatus] }
        guard let data = try? ControlCodec.prettyEncoder().encode(Document(bonds: bonds)) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// `blesensor bonds remove`: what was forgotten and what that means for the central.
    public static func removedText(_ bond: BondStatus) -> String {
        var text = "removed the bond with \(bond.identity); it must pair again to use encryption\n"
        if bond.connected { text += "it is connected now and keeps this connection's encryption until it disconnects\n" }
        return text
    }

    /// `blesensor pair --window`: whether pairing is open now, and how a passkey comes about.
    public static func pairingText(_ pairing: PairingStatus) -> String {
        var lines: [String] = []
        switch pairing.mode {
        case .always:
            lines.append("pairing is always allowed (security.pairing: always); no window is needed")
        case .never:
            // The daemon refuses to open a window then; kept total for a status from elsewhere.
            lines.append("pairing is turned off (security.pairing: never); set security.pairing to window or always and restart blesensord")
        case .window:
            if let remaining = pairing.windowRemainingSeconds {
                lines.append("pairing window open for \(NumberText.duration(remaining.rounded())): centrals may pair until it closes")
            } else {
                lines.append("the pairing window is closed")
            }
        }
        switch pairing.passkeyMode {
        case .none:
            lines.append("no passkey: the configured io-capability pairs without one")
        case .fixed:
            lines.append("passkey: \(pairing.passkey ?? "the configured one (security.passkey)"); enter it on the central when asked")
        case .random:
            if let passkey = pairing.passkey {
                lines.append("passkey: \(passkey) (the last random one; each pairing shows a new one: `sudo blesensor pair --passkey` when the central asks)")
            } else {
                lines.append("passkey: a new random one per pairing; when the central asks for it, `sudo blesensor pair --passkey` shows it")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line of `blesensor pair --follow`.
    public static func pairingEventLine(_ event: PairingEvent) -> String {
        let peer = event.peer ?? "a central"
        let detail = event.detail.map { ": \($0)" } ?? ""
        switch event.kind {
        case .passkey: return "\(peer) asks for the passkey: type \(event.passkey ?? "?") on it"
        case .comparison: return "\(peer) numeric comparison \(event.number ?? "?"): its screen must show the same number\(detail)"
        case .paired: return "\(peer) paired\(detail)"
        case .failed: return "\(peer) pairing failed\(detail)"
        case .windowOpened: return "pairing window opened\(event.detail.map { " for \($0)" } ?? "")"
        case .windowClosed: return "pairing window closed"
        }
    }

    /// The `pairing` line of `status`.
    static func pairingSummary(_ pairing: PairingStatus) -> String {
        var text: String
        switch pairing.mode {
        case .always: text = "always allowed"
        case .never: text = "never (bonded centrals still reconnect)"
        case .window:
            text = pairing.windowRemainingSeconds.map { "window open, \(NumberText.duration($0.rounded())) left" }
                ?? "window closed (open one with `blesensor pair --window 60`)"
        }
        switch pairing.passkeyMode {
        case .none: break
        case .fixed: text += "; fixed passkey (`sudo blesensor pair --passkey` shows it)"
        case .random: text += "; random passkey per pairing (`sudo blesensor pair --passkey` shows it)"
        }
        return text
    }

    /// The `bonds` line of `status`.
    static func bondsSummary(_ identities: [String]) -> String {
        identities.isEmpty ? "none" : "\(identities.count): \(identities.joined(separator: ", "))"
    }

    /// `authenticated, 16-octet key, bonded` after a central's level; parts the daemon did not send are left out.
    static func centralSecurity(_ central: CentralStatus) -> String {
        var parts = [central.securityLevel ?? central.security]
        if let keySize = central.keySize, keySize > 0 { parts.append("\(keySize)-octet key") }
        if let bonded = central.bonded { parts.append(bonded ? "bonded" : "not bonded") }
        return parts.joined(separator: ", ")
    }

    private static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    /// `2025-05-01 12:00:00Z`: UTC, so it reads the same on the board and wherever it is pasted.
    static func date(_ date: Date) -> String {
        Date.ISO8601FormatStyle(dateTimeSeparator: .space, timeZone: .gmt).format(date)
    }
}

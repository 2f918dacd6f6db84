import Foundation
import HCI
import SMP

/// The user side of pairing on a terminal: shows passkeys and numbers on stderr, takes a typed
/// passkey from stdin (or `--passkey`), and asks y/n for a numeric comparison (or `--yes`).
/// Reading the terminal blocks, so it happens on a thread of its own, never on the cooperative pool.
struct TerminalPairingAgent: PairingAgent {
    let passkey: UInt32?
    let acceptComparison: Bool

    func mayPair(_ link: Link, request: PairingFeatures) async -> PairingDecision { .allow }

    func display(passkey: UInt32, on link: Link) async {
        CLIEnvironment.printError("blesensor: enter passkey \(Self.sixDigits(passkey)) on \(link.peer)")
    }

    func enterPasskey(on link: Link) async -> UInt32? {
        if let passkey { return passkey }
        guard isatty(STDIN_FILENO) == 1 else {
            CLIEnvironment.printError("blesensor: pairing asks for the passkey \(link.peer) shows; give it with --passkey N")
            return nil
        }
        let answer = await Self.readLine(prompt: "passkey shown by \(link.peer): ")
        return answer.flatMap { UInt32($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 <= 999_999 ? $0 : nil }
    }

    /// `--yes` accepts before anyone saw the number: the key is then unauthenticated.
    func confirm(numericComparison value: UInt32, on link: Link) async -> ComparisonAnswer {
        CLIEnvironment.printError("blesensor: \(link.peer) should show \(Self.sixDigits(value))")
        if acceptComparison { return .acceptedWithoutComparing }
        guard isatty(STDIN_FILENO) == 1 else {
            CLIEnvironment.printError("blesensor: cannot ask whether the numbers match without a terminal; give --yes to accept (unauthenticated)")
            return .rejected
        }
        let answer = await Self.readLine(prompt: "do the numbers match? [y/N] ")
        let confirmed = answer.map { ["y", "yes"].contains($0.trimmingCharacters(in: .whitespaces).lowercased()) } ?? false
        return confirmed ? .confirmedByPerson : .rejected
    }

    private static func sixDigits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }

    private static func readLine(prompt: String) async -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Swift.readLine()) }
        }
    }
}

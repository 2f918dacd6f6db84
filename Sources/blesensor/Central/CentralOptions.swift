import ArgumentParser
import SMP

/// How a central command reaches the controller.
struct TransportOptions: ParsableArguments {
    @Option(help: "The controller: auto (hci:0 when the kernel has it), hci:N, uart:/dev/ttyX?baud=115200&flow=on, or tcp:HOST:PORT (H4 over TCP).")
    var transport = "auto"

    @Option(help: "Seconds to wait for the controller to answer (a tcp: or uart: controller that is not there is retried until then).")
    var controllerTimeout: Double = 5

    @Flag(name: .long, help: "Log the stack's work on stderr.")
    var verbose = false

    func validate() throws {
        guard controllerTimeout > 0, controllerTimeout <= 3600 else { throw ValidationError("--controller-timeout must be 0 < S <= 3600") }
    }

    @Option(help: "The daemon's control socket, asked which controller the daemon owns (default: /run/blesensor/control.sock, or this user's runtime directory).")
    var socket: String?
}

/// How a command that connects finds the peripheral and secures the link.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Seconds to find and connect to the peripheral.")
    var connectTimeout: Double = 10

    @Option(help: "The address type, public or random; learnt by scanning when left out.")
    var addressType: AddressTypeArgument?

    @Flag(help: "Pair before the operation (or re-encrypt when already bonded).")
    var pair = false

    @Flag(help: "Encrypt with the stored bond's key; fail when there is none.")
    var encrypt = false

    @Option(help: "What this side can show or take when pairing: display-only, display-yes-no, keyboard-only, no-input-no-output, keyboard-display.")
    var ioCapability: IOCapabilityArgument = .keyboardDisplay

    @Option(help: "The passkey to enter when pairing asks for one (otherwise asked on the terminal).")
    var passkey: UInt32?

    @Flag(help: "Accept a numeric comparison without asking (no one compares, so the key is unauthenticated).")
    var yes = false

    @Flag(help: "Offer legacy pairing only (no LE Secure Connections).")
    var legacy = false

    @Option(help: "Where bonds.sqlite is kept (default: the daemon's state directory).")
    var stateDir: String?

    func validate() throws {
        guard connectTimeout > 0, connectTimeout <= 3600 else { throw ValidationError("--connect-timeout must be 0 < S <= 3600") }
        if let passkey, passkey > 999_999 { throw ValidationError("--passkey must have at most 6 digits") }
        if pair && encrypt { throw ValidationError("--pair already re-encrypts when bonded; give one of --pair and --encrypt") }
    }

    var needsSecurity: Bool { pair || encrypt }
}

enum AddressTypeArgument: String, ExpressibleByArgument, CaseIterable {
    case `public`, random
}

enum IOCapabilityArgument: String, ExpressibleByArgument, CaseIterable {
    case displayOnly = "display-only"
    case displayYesNo = "display-yes-no"
    case keyboardOnly = "keyboard-only"
    case noInputNoOutput = "no-input-no-output"
    case keyboardDisplay = "keyboard-display"

    var capability: IOCapability {
        switch self {
        case .displayOnly: return .displayOnly
        case .displayYesNo: return .displayYesNo
        case .keyboardOnly: return .keyboardOnly
        case .noInputNoOutput: return .noInputNoOutput
        case .keyboardDisplay: return .keyboardDisplay
        }
    }
}

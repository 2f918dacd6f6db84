import ArgumentParser
import ControlSocket

/// `blesensor bonds list|remove`: the centrals the daemon keeps keys for.
struct BondsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bonds",
        abstract: "List or remove the daemon's bonds (centrals it keeps keys for).",
        subcommands: [BondsListCommand.self, BondsRemoveCommand.self],
        defaultSubcommand: BondsListCommand.self)
}

struct BondsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show each bond: identity address and type, key size, authenticated, LE Secure Connections, privacy (IRK), created, last seen, connected.")

    @Flag(help: "Print the bonds as JSON.")
    var json = false

    @Option(help: "The daemon's control socket (default: /run/blesensor/control.sock, or this user's runtime directory).")
    var socket: String?

    func run() throws {
        try CLIEnvironment.withDaemon("bonds list", socket: socket) { client in
            let bonds = try client.bonds()
            print(json ? SecurityFormatter.bondsJSON(bonds) : SecurityFormatter.bondsText(bonds), terminator: "")
        }
    }
}

struct BondsRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Forget a bond: the central must pair again. Exit status 1 when the address names no bond or more than one.")

    @Argument(help: "The identity address as `bonds list` shows it: AA:BB:CC:DD:EE:FF, optionally with ' (public)' or ' (random)'.")
    var address: String

    @Option(help: "The address type, when a public and a random identity share the address: public or random.")
    var type: String?

    @Option(help: "The daemon's control socket (default: /run/blesensor/control.sock, or this user's runtime directory).")
    var socket: String?

    func run() throws {
        let target: BondAddress
        switch BondAddress.parse(address, type: type) {
        case .success(let parsed): target = parsed
        case .failure(let failure):
            CLIEnvironment.printError("blesensor bonds remove: \(failure)")
            throw ExitCode(1)
        }
        // A store write: allow it longer than a status read, and longer than the daemon's own limit.
        try CLIEnvironment.withDaemon("bonds remove", socket: socket, replyTimeout: .seconds(15)) { client in
            print(SecurityFormatter.removedText(try client.removeBond(target)), terminator: "")
        }
    }
}

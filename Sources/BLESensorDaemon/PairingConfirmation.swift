import BLECore
import ChildProcesses

/// Runs `security.confirm-command`, the program through which a person says whether a numeric
/// comparison matches. It must answer within the SMP timeout (30 s), so it gets 25 s.
enum PairingConfirmation {
    enum Outcome: Sendable, Equatable {
        case confirmed
        case refused(String)
    }

    static let timeLimit = Duration.seconds(25)

    /// Arguments: the six digits and the central's address; exit status 0 means confirmed.
    static func ask(_ command: String, number: String, peer: String, clock: any HostClock) async -> Outcome {
        await DedicatedThread.run {
            let environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "BLESENSOR_COMPARISON": number, "BLESENSOR_CENTRAL": peer]
            switch ChildProcess.run(command, arguments: [number, peer], environment: environment, timeout: Self.timeLimit, clock: clock) {
            case let .success(result) where result.exitCode == 0: return .confirmed
            case let .success(result):
                let said = result.standardError.split(separator: "\n").last.map { ": \($0)" } ?? ""
                return .refused(result.exitCode.map { "\(command) exited with status \($0)\(said)" } ?? "\(command) was killed by a signal")
            case let .failure(error): return .refused("\(error)")
            }
        }
    }
}

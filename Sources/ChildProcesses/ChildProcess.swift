#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECore

/// What a short-lived helper (systemctl, a pairing confirmation command) printed and how it ended.
public struct ChildResult: Sendable, Equatable {
    /// Nil when it was ended by a signal.
    public var exitCode: Int32?
    public var standardOutput: String
    public var standardError: String

    public init(exitCode: Int32?, standardOutput: String, standardError: String) {
        self.exitCode = exitCode
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}

/// Why a helper gave no result.
public enum ChildProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    case couldNotStart(path: String, errno: Int32)
    case timedOut(path: String, after: Duration)

    public var description: String {
        switch self {
        case let .couldNotStart(path, code): "cannot run \(path): \(String(cString: strerror(code)))"
        case let .timedOut(path, after): "\(path) did not finish within \(after.components.seconds) s"
        }
    }
}

/// Runs a helper with stdin from /dev/null and its output captured (at most `outputLimit` bytes of
/// each stream), waits at most `timeout` on `clock`, and kills it with SIGKILL after that.
public enum ChildProcess {
    public static let outputLimit = 64 * 1024

    public static func run(_ path: String, arguments: [String], environment: [String: String], timeout: Duration,
                    clock: any HostClock) -> Result<ChildResult, ChildProcessError> {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { return .failure(.couldNotStart(path: path, errno: errno)) }
        guard pipe(&errors) == 0 else {
            let code = errno
            output.forEach { _ = close($0) }
            return .failure(.couldNotStart(path: path, errno: code))
        }
        // Only the child's dup2'd 1 and 2 survive exec; no other helper inherits these pipes.
        for fd in output + errors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let spawned = spawn(path, arguments: arguments, environment: environment, stdout: output[1], stderr: errors[1])
        _ = close(output[1])
        _ = close(errors[1])
        let pid: pid_t
        switch spawned {
        case let .success(child): pid = child
        case let .failure(error):
            _ = close(output[0])
            _ = close(errors[0])
            return .failure(error)
        }
        let child = Child(pid: pid)
        let (outputFD, errorFD) = (output[0], errors[0])
        let outcome = BoundedWork.run(name: "child-\(path)", timeout: timeout, clock: clock, onTimeout: { child.killIfRunning() }) {
            let (out, err) = drain(outputFD, errorFD)
            return ChildResult(exitCode: child.reap(), standardOutput: out, standardError: err)
        }
        switch outcome {
        case let .finished(result): return .success(result)
        case .timedOut: return .failure(.timedOut(path: path, after: timeout))
        }
    }

    private static func spawn(_ path: String, arguments: [String], environment: [String: String],
                              stdout: Int32, stderr: Int32) -> Result<pid_t, ChildProcessError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        let argv = ([path] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, nil, argv + [nil], envp + [nil])
        return status == 0 ? .success(pid) : .failure(.couldNotStart(path: path, errno: status))
    }

    /// Reads both pipes until both are closed, keeping at most `outputLimit` bytes of each.
    private static func drain(_ outputFD: Int32, _ errorFD: Int32) -> (String, String) {
        var fds = [pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0), pollfd(fd: errorFD, events: Int16(POLLIN), revents: 0)]
        var collected: [[UInt8]] = [[], []]
        var chunk = [UInt8](repeating: 0, count: 4096)
        while fds.contains(where: { $0.fd >= 0 }) {
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), -1) }
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 {
                    _ = close(fds[index].fd)
                    fds[index].fd = -1
                    continue
                }
                let room = max(0, outputLimit - collected[index].count)
                collected[index].append(contentsOf: chunk[0..<min(count, room)])
            }
        }
        for entry in fds where entry.fd >= 0 { _ = close(entry.fd) }
        return (String(decoding: collected[0], as: UTF8.self), String(decoding: collected[1], as: UTF8.self))
    }
}

/// A spawned child that is killed only while it is certainly ours: the exit is observed with
/// WNOWAIT first, so its pid cannot have been reused by another process when `kill` runs.
private final class Child: Sendable {
    let pid: pid_t
    private let exited = Locked(false)

    init(pid: pid_t) { self.pid = pid }

    func killIfRunning() {
        exited.withLock { exited in
            if !exited { _ = kill(pid, SIGKILL) }
        }
    }

    /// Waits for the exit, then reaps; the exit code, or nil after a signal.
    func reap() -> Int32? {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
            if errno != EINTR { break }
        }
        exited.withLock { $0 = true }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }
}

import Foundation
import Glibc
import Testing

/// Runs a synchronous body at SCHED_FIFO; threads it starts inherit the policy, and the calling
/// thread gets its own back afterwards. For kernel tests that must keep a kernel worker from running
/// between two writes, in a process confined to the worker's CPU.
enum RealtimeThread {
    static func running<E: Error>(onCPU cpu: Int, _ body: () throws(E) -> Void) throws {
        // Affinity comes from outside (taskset): sched_setaffinity is not in Swift's Glibc module.
        let allowed = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
        try #require(allowed == String(cpu), "the process may run on CPUs \(allowed ?? "?"), not only on \(cpu): run it under taskset -c \(cpu)")
        let previousPolicy = sched_getscheduler(0)
        var previousParameters = sched_param()
        try #require(previousPolicy >= 0, "sched_getscheduler: \(errnoText)")
        try #require(sched_getparam(0, &previousParameters) == 0, "sched_getparam: \(errnoText)")
        defer { precondition(sched_setscheduler(0, previousPolicy, &previousParameters) == 0, "restoring the scheduling policy: \(errnoText)") }
        var realtime = sched_param(sched_priority: 1)
        try #require(sched_setscheduler(0, SCHED_FIFO, &realtime) == 0, "sched_setscheduler SCHED_FIFO (needs root or CAP_SYS_NICE): \(errnoText)")
        try body()
    }

    private static var errnoText: String { String(cString: strerror(errno)) }
}

// CPU per tick of a 2000 Hz periodic timer, three ways, as whole-process user+sys time:
// a Task.sleep loop, a Dispatch timer source, and the host's SystemClock (one thread, timerfd).
// Each runs alone for a fixed wall time doing nothing but counting ticks.
//
// Build and run:  swift build -c release --product timer-bench && $(swift build -c release --show-bin-path)/timer-bench
import BLECore
import Dispatch
import Foundation
import Synchronization

let rate = 2000.0
let seconds = 5.0
let period = Duration.nanoseconds(Int64(1e9 / rate))

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

final class Ticks: Sendable {
    let count = Atomic<Int>(0)
    func tick() { count.add(1, ordering: .relaxed) }
}

func report(_ name: String, ticks: Int, cpu: Double) {
    let perTick = ticks > 0 ? cpu / Double(ticks) * 1e6 : 0
    print("\(name): \(ticks) ticks in \(seconds) s (\(Int(Double(ticks) / seconds)) Hz), \(String(format: "%.1f", cpu * 1000)) ms CPU, \(String(format: "%.1f", perTick)) µs per tick")
}

func measureTaskSleep() async {
    let ticks = Ticks()
    let start = cpuSeconds()
    let task = Task {
        while !Task.isCancelled {
            try? await Task.sleep(for: period)
            ticks.tick()
        }
    }
    try? await Task.sleep(for: .seconds(seconds))
    task.cancel()
    _ = await task.value
    report("Task.sleep loop      ", ticks: ticks.count.load(ordering: .relaxed), cpu: cpuSeconds() - start)
}

func measureDispatchSource() async {
    let ticks = Ticks()
    let start = cpuSeconds()
    let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "bench-timer"))
    source.schedule(deadline: .now() + .nanoseconds(Int(1e9 / rate)), repeating: .nanoseconds(Int(1e9 / rate)), leeway: .nanoseconds(0))
    source.setEventHandler { ticks.tick() }
    source.resume()
    try? await Task.sleep(for: .seconds(seconds))
    source.cancel()
    report("Dispatch timer source", ticks: ticks.count.load(ordering: .relaxed), cpu: cpuSeconds() - start)
}

func measureSystemClock() async {
    let ticks = Ticks()
    let start = cpuSeconds()
    let timer = SystemClock.shared.repeating(every: period) { _ in ticks.tick() }
    try? await Task.sleep(for: .seconds(seconds))
    timer.cancel()
    report("SystemClock (timerfd)", ticks: ticks.count.load(ordering: .relaxed), cpu: cpuSeconds() - start)
}

print("2000 Hz periodic timer, \(seconds) s each, whole-process CPU (user+sys)")
await measureTaskSleep()
await measureDispatchSource()
await measureSystemClock()

// Host cost of one notification, from `NotificationEngine.update` to the PDU handed to the sink.
//
// Build and run:  swift build -c release --product notify-bench && .build/release/notify-bench
//
// The sink accepts everything and only adds the PDU length to an atomic (the transport write is
// excluded, as the target says). The application's value array is built once, outside the timed
// loop, like a value the app already holds. Per configuration: ~1e6 notifications per round
// (1e6 / centrals updates), median of 7 rounds, reported per notification per central. Heap
// allocations come from MallocCounter, which defines malloc & co. in this executable (see
// Benchmarks/MallocCounter/MallocCounter.c), counted over a separate untimed run.
import BLECore
import GATTNotify
import HCI
import MallocCounter
import Synchronization

final class CountingSink: NotificationSink {
    let bytes = Atomic<Int>(0)
    let pdus = Atomic<Int>(0)

    func trySend(_ l2capPDU: [UInt8], on link: Link) -> Bool {
        bytes.add(l2capPDU.count, ordering: .relaxed)
        pdus.add(1, ordering: .relaxed)
        return true
    }
}

struct Result {
    var valueLength: Int
    var centrals: Int
    var nanosecondsPerNotification: Double
    var allocationsPerNotification: Double
}

enum BenchError: Error, CustomStringConvertible {
    case notDelivered(expected: Int, delivered: Int)
    var description: String {
        switch self {
        case let .notDelivered(expected, delivered):
            return "the sink received \(delivered) PDUs instead of \(expected): the engine dropped or held values"
        }
    }
}

func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

func measure(valueLength: Int, centrals: Int, notificationsPerRound: Int = 1_000_000, rounds: Int = 7) throws -> Result {
    let sink = CountingSink()
    let engine = NotificationEngine(sink: sink)
    let links = (1...centrals).map { handle in
        Link(handle: UInt16(handle), role: .peripheral, peer: DeviceAddress(.zero, type: .randomDevice),
             parameters: Link.Parameters(interval: 6, latency: 0, supervisionTimeout: 100))
    }
    for link in links {
        link.setMTU(247)
        try engine.addLink(link)
    }
    let targets = links.map(\.id)
    let value = (0..<valueLength).map { UInt8(truncatingIfNeeded: $0) }
    let updates = notificationsPerRound / centrals
    let characteristic: UInt16 = 0x002A

    // Warm-up: first-use dictionary storage, caches, branch predictors.
    for _ in 0..<10_000 { engine.update(value, characteristic: characteristic, to: targets) }

    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0..<rounds {
        let elapsed = clock.measure {
            for _ in 0..<updates { engine.update(value, characteristic: characteristic, to: targets) }
        }
        samples.append(nanoseconds(elapsed) / Double(updates * centrals))
    }
    samples.sort()

    let allocationUpdates = 100_000 / centrals
    let before = malloc_counter_allocations()
    for _ in 0..<allocationUpdates { engine.update(value, characteristic: characteristic, to: targets) }
    let allocations = malloc_counter_allocations() - before

    let expected = (10_000 + rounds * updates + allocationUpdates) * centrals
    let delivered = sink.pdus.load(ordering: .relaxed)
    guard delivered == expected else { throw BenchError.notDelivered(expected: expected, delivered: delivered) }
    return Result(valueLength: valueLength, centrals: centrals,
                  nanosecondsPerNotification: samples[samples.count / 2],
                  allocationsPerNotification: Double(allocations) / Double(allocationUpdates * centrals))
}

func padded(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

func formatted(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    let text = String(rounded)
    guard let dot = text.firstIndex(of: ".") else { return text }
    let fraction = text[text.index(after: dot)...]
    return String(text[..<dot]) + "." + fraction + String(repeating: "0", count: max(0, decimals - fraction.count))
}

// Sanity check of the counter itself: one array of fresh storage is one allocation. The size is
// computed first (and the check run twice) so one-time runtime set-up is not counted.
func probeAllocations(size: Int) -> (allocations: UInt64, bytes: Int) {
    let before = malloc_counter_allocations()
    let probe = [UInt8](repeating: 0, count: size)
    let allocations = malloc_counter_allocations() - before
    return (allocations, probe.count)
}
let probeSize = Int.random(in: 64...128)
_ = probeAllocations(size: probeSize)
let probe = probeAllocations(size: probeSize)
print("malloc counter self-check: \(probe.allocations) allocation(s) for one \(probe.bytes)-byte array (expect 1)")
print("notification engine: update → sink, per notification per central (median of 7 rounds of ~1e6)")
print("value bytes  centrals    ns/notification  allocations/notification")
var failed = false
for valueLength in [20, 244] {
    for centrals in [1, 8] {
        do {
            let result = try measure(valueLength: valueLength, centrals: centrals)
            print(padded(String(result.valueLength), 11), padded(String(result.centrals), 9),
                  padded(formatted(result.nanosecondsPerNotification, decimals: 1), 18),
                  padded(formatted(result.allocationsPerNotification, decimals: 3), 25))
            if result.nanosecondsPerNotification >= 1_000 || result.allocationsPerNotification > 1 { failed = true }
        } catch {
            print("\(valueLength) bytes, \(centrals) centrals: \(error)")
            failed = true
        }
    }
}
print(failed ? "targets (< 1000 ns, ≤ 1 allocation) NOT met" : "targets met: < 1000 ns and ≤ 1 allocation per notification per central")

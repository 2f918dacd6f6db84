import Synchronization

/// The wait before a chip's first result can be trusted. Its result register holds 0x0000 (read as
/// 0.00 °C) until the first conversion after power-up completes, and a driver cannot tell how long
/// the chip has been powered, so the first read waits one conversion time after the driver first
/// reached it. The wait is short and happens once, on the sensor's own thread, so sleeping (on the
/// injectable clock) is simpler for callers than a "not ready yet" error they would have to retry.
final class FirstConversionWait: Sendable {
    private let due = Mutex<UInt64?>(nil)
    private let nanoseconds: UInt64

    init(milliseconds: Double) {
        nanoseconds = UInt64(milliseconds * 1e6)
    }

    /// Sleeps until the first conversion is surely done; returns at once after that.
    func wait(on clock: any SensorClock) {
        let now = clock.nowNanoseconds()
        let deadline = due.withLock { due -> UInt64 in
            let value = due ?? now.saturatingAdd(nanoseconds)
            due = value
            return value
        }
        if now < deadline { clock.sleep(nanoseconds: deadline - now) }
    }

    /// A conversion is known to have completed by `now` (the driver waited for it itself).
    func completed(at now: UInt64) {
        due.withLock { $0 = now }
    }
}

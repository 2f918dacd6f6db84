#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import HCI
import Logging

/// Takes `hciN` for the HCI user channel. The channel binds only to an adapter that is down, and
/// bluetoothd keeps adapters powered: so an adapter that is up is powered down here (HCIDEVDOWN,
/// needs CAP_NET_ADMIN) and then bound. bluetoothd may power it up again in between, so a busy
/// bind is retried a few times with a growing back-off on the monotonic clock before giving up. A
/// soft rfkill block is cleared when this process may write /dev/rfkill. Every failure is an
/// `HCITransportError` that says what to do.
struct AdapterTakeover: Sendable {
    /// Binds tried before an adapter that keeps coming back up is reported as busy.
    static let maxAttempts = 6
    /// Waits between busy binds: 100, 200, 400, 800, 1000 ms (2.5 s in all).
    static let firstBackoff: Duration = .milliseconds(100)
    static let maxBackoff: Duration = .seconds(1)

    let index: UInt16
    let probe: BluetoothAdapterProbe
    let clock: any HostClock
    let logger: Logger

    var device: String { "hci\(index)" }
    private var calls: any HCISystemCalls { probe.calls }

    /// What one attempt came to.
    enum Attempt: Sendable {
        case bound(Int32)
        /// The bind said EBUSY: the adapter was powered up again, or the kernel is still setting it up.
        case busy(poweredDown: Bool)
        /// A soft rfkill block was cleared: try again at once.
        case unblocked(RfkillSwitch)
        case failed(HCITransportError)
    }

    /// The bound user-channel socket. `isAbandoned` is polled between attempts (the transport was closed).
    func take(isAbandoned: @escaping @Sendable () -> Bool) async throws(HCITransportError) -> Int32 {
        let started = clock.now
        var attempts = 0
        var poweredDown = 0
        var unblocked = false
        var backoff = Self.firstBackoff
        while true {
            if isAbandoned() || Task.isCancelled { throw .cancelled("opening \(device)") }
            attempts += 1
            let mayUnblock = !unblocked
            // Each attempt's system calls block (HCIDEVDOWN waits for the controller): a thread of their own.
            let outcome = await DedicatedThread.run(name: "hci-open \(device)") { [self] in attempt(mayUnblock: mayUnblock) }
            switch outcome {
            case let .bound(socket):
                if isAbandoned() {
                    calls.close(socket)
                    throw .cancelled("opening \(device)")
                }
                return socket
            case let .failed(error):
                throw error
            case let .unblocked(rfkill):
                logger.notice("\(device) was soft-blocked by rfkill: unblocked \(rfkill.label)")
                unblocked = true
            case let .busy(didPowerDown):
                if didPowerDown { poweredDown += 1 }
                guard attempts < Self.maxAttempts else {
                    throw busy(attempts: attempts, elapsed: clock.now - started, poweredDown: poweredDown)
                }
                logger.info("\(device) is busy (powered up again, or still being set up by the kernel); retrying in \(backoff.wholeMilliseconds) ms")
                do { try await clock.sleep(for: backoff) } catch { throw .cancelled("opening \(device)") }
                backoff = min(backoff * 2, Self.maxBackoff)
            }
        }
    }

    /// Socket, power down if up, bind; on ERFKILL, the rfkill switch. Blocking: a dedicated thread only.
    func attempt(mayUnblock: Bool) -> Attempt {
        let socket: Int32
        switch calls.openSocket() {
        case let .success(descriptor): socket = descriptor
        case let .failure(error): return .failed(socketFailure(error))
        }
        var bound = false
        defer { if !bound { calls.close(socket) } }

        var poweredDown = false
        switch calls.isUp(socket, index: index) {
        case .success(true):
            logger.info("\(device) is up (bluetoothd or another program powered it): powering it down to take it for the HCI user channel")
            switch calls.powerDown(socket, index: index) {
            case .success: poweredDown = true
            case let .failure(error) where error.code == EALREADY: break
            case let .failure(error): return .failed(powerDownFailure(error))
            }
        case .success(false):
            break
        case let .failure(error) where error.code == ENODEV:
            return .failed(notFound())
        case .failure:
            break // the bind reports what is wrong
        }

        switch calls.bindUserChannel(socket, index: index) {
        case .success:
            bound = true
            return .bound(socket)
        case let .failure(error) where error.code == EBUSY:
            return .busy(poweredDown: poweredDown)
        case let .failure(error) where error.code == SystemErrno.rfkill:
            return rfkillBlocked(mayUnblock: mayUnblock)
        case let .failure(error):
            return .failed(bindFailure(error))
        }
    }

    /// The bind said ERFKILL: read the switch, unblock a soft block once if we may.
    private func rfkillBlocked(mayUnblock: Bool) -> Attempt {
        let state: RfkillSwitch?
        do { state = try probe.rfkillState(of: index) } catch {
            return .failed(.rfkillBlocked(device, .unknown, hint: unknownBlockHint(error)))
        }
        guard let state else { return .failed(.rfkillBlocked(device, .unknown, hint: unknownBlockHint(nil))) }
        if state.hardBlocked { return .failed(.rfkillBlocked(device, .hard, hint: hardBlockHint(state))) }
        // Unblocked between the bind and the read: another attempt (bounded like a busy bind).
        guard state.softBlocked else { return .busy(poweredDown: false) }
        guard mayUnblock else { return .failed(.rfkillBlocked(device, .soft, hint: blockedAgainHint(state))) }
        switch calls.unblockRfkill(index: state.index) {
        case .success: return .unblocked(state)
        case let .failure(error): return .failed(.rfkillBlocked(device, .soft, hint: softBlockHint(state, error)))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECore
import Logging
import ServiceManager

/// What the daemon tells systemd (`Type=notify`): READY and STATUS once serving, WATCHDOG at half
/// of `WatchdogSec`, STOPPING on the way out. Without `NOTIFY_SOCKET` every call does nothing.
/// Sends are non-blocking datagrams, so they are safe from any thread.
public struct ServiceNotifications: Sendable {
    private let notifier: SystemdNotifier?
    private let watchdog: WatchdogSettings?
    private let clock: any HostClock
    private let logger: Logger

    public init(environment: [String: String], clock: any HostClock = SystemClock.shared, logger: Logger) {
        self.clock = clock
        self.logger = logger
        do {
            notifier = try SystemdNotifier(environment: environment)
        } catch {
            logger.warning("cannot notify the service manager: \(error)")
            notifier = nil
        }
        watchdog = WatchdogSettings.from(environment: environment, processID: getpid())
    }

    func ready(status: String) { send([.ready, .status(status)]) }
    func stopping(status: String) { send([.stopping, .status(status)]) }
    func failed(_ reason: String) { send([.status(reason)]) }

    /// Pings the watchdog at half its interval from the host clock, refreshing STATUS each time.
    /// The pings come from the same timer thread that runs the host's timeouts, so a wedged host
    /// stops them and systemd restarts the daemon.
    func startWatchdog(status: @escaping @Sendable () -> String) -> RepeatingTimer? {
        guard let watchdog, notifier?.isEnabled == true else { return nil }
        logger.info("systemd watchdog every \(watchdog.interval), pinging every \(watchdog.pingInterval)")
        return clock.repeating(every: watchdog.pingInterval) { _ in
            self.send([.watchdog, .status(status())])
        }
    }

    private func send(_ notifications: [ServiceNotification]) {
        guard let notifier, notifier.isEnabled else { return }
        do { try notifier.send(notifications) } catch { logger.warning("service manager notification failed: \(error)") }
    }
}

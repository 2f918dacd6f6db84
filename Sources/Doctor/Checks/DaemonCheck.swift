import BridgeConfiguration
import ControlSocket

/// Whether blesensord runs, as far as the doctor can tell; decides whether sensors may be read directly.
enum DaemonState {
    /// It answered on its control socket.
    case answering(StatusSnapshot)
    /// systemd or the process table says it runs, but its status could not be read.
    case runningUnreachable
    case stopped
}

/// What systemd says about the unit.
enum SystemdView: Equatable {
    /// systemd is not init here (no /run/systemd/system) or there is no systemctl.
    case absent
    case unavailable(reason: String)
    case unit(activity: String, enablement: String)

    var saysRunning: Bool {
        guard case let .unit(activity, _) = self else { return false }
        return ["active", "reloading", "activating"].contains(activity)
    }
}

extension Examination {
    /// The control socket's answer, then systemd's view of the unit.
    mutating func checkDaemon(_ configuration: BridgeConfiguration?) -> DaemonState {
        let socket = controlSocket(configuration)
        let systemd = systemdView()
        let running = systemd.saysRunning || ProcessTable(root: root).isRunning(Installed.unit)
        let state: DaemonState
        switch environment.daemon.status(socket: root.resolve(socket)) {
        case let .success(snapshot):
            let centrals = snapshot.centrals.count == 1 ? "1 central connected" : "\(snapshot.centrals.count) centrals connected"
            let detail = "answering on \(socket): transport \(snapshot.transport), address \(snapshot.address), "
                + "\(snapshot.advertising ? "advertising" : "not advertising"), \(centrals)"
            if !snapshot.advertising, snapshot.centrals.isEmpty {
                add(.daemon, .warn, "blesensord", detail + ": phones cannot find it", fix: "look for the reason in its log: \(Installed.log)")
            } else {
                add(.daemon, .ok, "blesensord", detail)
            }
            // What bring-up found the controller cannot do: the daemon copes, except where firmware is missing.
            for limitation in snapshot.controllerLimitations ?? [] {
                if limitation.needsAction {
                    add(.bluetooth, .warn, "controller", limitation.text, fix: "install the firmware named above and reboot; its log: \(Installed.log)")
                } else {
                    add(.bluetooth, .info, "controller", limitation.text)
                }
            }
            for problem in snapshot.bondStoreProblems ?? [] {
                add(.daemon, .warn, "bond store", problem, fix: "see the daemon's log for what happened: \(Installed.log)")
            }
            state = .answering(snapshot)
        case .failure(.permissionDenied):
            add(.daemon, .warn, "blesensord", "status not readable: permission denied on \(socket)",
                fix: "run sudo blesensor doctor, or join group \(Installed.socketGroup) (see above)")
            state = .runningUnreachable
        case .failure(.notRunning), .failure(.staleSocket):
            if running {
                add(.daemon, .fail, "blesensord", "running, but not answering on \(socket)",
                    fix: "if it was started with another control socket, pass that with --socket; otherwise \(Installed.restart) (log: \(Installed.log))")
                state = .runningUnreachable
            } else {
                add(.daemon, .fail, "blesensord", "not running (no control socket at \(socket))",
                    fix: "sudo systemctl enable --now blesensord; its log: \(Installed.log)")
                state = .stopped
            }
        case let .failure(error):
            add(.daemon, .fail, "blesensord", "not answering on \(socket): \(error)", fix: "\(Installed.restart); its log: \(Installed.log)")
            state = .runningUnreachable
        }
        let answers = if case .answering = state { true } else { false }
        reportSystemd(systemd, daemonAnswers: answers)
        return state
    }

    /// `--socket`, else the configuration's (by default where systemd puts it); when that is absent
    /// but a daemon run by hand by this user has its socket in the user's runtime directory, that one.
    private func controlSocket(_ configuration: BridgeConfiguration?) -> String {
        if let explicit = options.socketPath { return explicit }
        let configured = configuration?.paths.controlSocket ?? Installed.serviceSocket
        guard configured == Installed.serviceSocket, !root.exists(configured) else { return configured }
        let own = PathSettings.defaults(environment: environment.variables, userID: environment.invoker.uid).controlSocket
        return root.info(own)?.kind == .socket ? own : configured
    }

    private func systemdView() -> SystemdView {
        // sd_booted(): systemd is init only where /run/systemd/system exists.
        guard root.info("/run/systemd/system")?.kind == .directory, let services = environment.services else { return .absent }
        switch services.query(.isActive, unit: Installed.unit) {
        case let .unavailable(reason): return .unavailable(reason: reason)
        case let .state(activity):
            switch services.query(.isEnabled, unit: Installed.unit) {
            case let .state(enablement): return .unit(activity: activity, enablement: enablement)
            case .unavailable: return .unit(activity: activity, enablement: "enablement unknown")
            }
        }
    }

    /// A daemon started by hand answers while the unit is inactive: then the unit's state is a warning.
    private mutating func reportSystemd(_ view: SystemdView, daemonAnswers: Bool) {
        let subject = "systemd \(Installed.unit)"
        let enableNow = "sudo systemctl enable --now blesensord; its log: \(Installed.log)"
        switch view {
        case .absent:
            add(.daemon, .info, subject, "systemd is not running here: blesensord has to be started by hand")
        case let .unavailable(reason):
            add(.daemon, .info, subject, "systemctl could not say: \(reason)")
        case let .unit(activity, enablement):
            let detail = "\(activity), \(enablement)"
            switch (activity, enablement) {
            case (_, "not-found"):
                add(.daemon, daemonAnswers ? .warn : .fail, subject, "no such unit: the package's unit is not installed",
                    fix: "install the package (sudo apt install ./blesensor_VERSION_ARCH.deb)")
            case (_, "masked"), (_, "masked-runtime"):
                add(.daemon, daemonAnswers ? .warn : .fail, subject, detail + ": it cannot be started",
                    fix: "sudo systemctl unmask blesensord, then \(enableNow)")
            case ("failed", _):
                add(.daemon, daemonAnswers ? .warn : .fail, subject, detail + ": it stopped with an error",
                    fix: "read why: \(Installed.log) -b -n 50; once fixed: \(Installed.restart)")
            case ("inactive", _), ("deactivating", _):
                if daemonAnswers {
                    add(.daemon, .warn, subject, detail + ": the blesensord that answers was started by hand",
                        fix: "to have systemd run it (and start it at boot), stop that one, then \(enableNow)")
                } else {
                    add(.daemon, .fail, subject, detail, fix: enableNow)
                }
            case ("active", "enabled"), ("reloading", "enabled"):
                add(.daemon, .ok, subject, detail)
            case ("active", _), ("reloading", _):
                add(.daemon, .warn, subject, detail + ": it will not start at boot", fix: "sudo systemctl enable blesensord")
            case ("activating", _):
                add(.daemon, .warn, subject, detail + ": still starting, or waiting to restart after a failure",
                    fix: "check again in a few seconds; if it stays so, read \(Installed.log)")
            default:
                add(.daemon, .info, subject, detail)
            }
        }
    }
}

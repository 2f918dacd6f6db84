import ControlSocket

extension Examination {
    /// Each exporter the daemon runs (MQTT, BTHome, Prometheus), from its status: failed is a
    /// problem, still (re)connecting a warning, both with the exporter's last error.
    mutating func checkExporters(daemon: DaemonState) {
        guard case let .answering(snapshot) = daemon else { return }
        for exporter in snapshot.exporters ?? [] {
            let subject = "exporter \(exporter.name)"
            var detail = "\(exporter.endpoint): \(exporter.state.rawValue), \(exporter.sent) sent, \(exporter.dropped) dropped"
            if let error = exporter.lastError { detail += "; last error: \(error)" }
            switch exporter.state {
            case .running:
                add(.exporters, .ok, subject, detail)
            case .connecting:
                add(.exporters, .warn, subject, detail,
                    fix: "it retries by itself; check that \(exporter.endpoint) is up and reachable from here (log: \(Installed.log))")
            case .failed:
                add(.exporters, .fail, subject, detail,
                    fix: "do what the last error says, then \(Installed.restart) (log: \(Installed.log))")
            }
        }
    }
}

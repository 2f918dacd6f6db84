import FoundationEssentials

/// What `blesensor status` prints.
public enum StatusFormatter {
    /// A readable summary: the daemon, then each central and each sensor.
    public static func text(_ snapshot: StatusSnapshot) -> String {
        var lines = [
            "blesensord \"\(snapshot.deviceName)\" on \(snapshot.board)",
            "  transport    \(snapshot.transport)",
            "  address      \(snapshot.address)",
            "  advertising  \(snapshot.advertising ? "yes" : "no")",
            "  uptime       \(NumberText.duration(snapshot.uptimeSeconds))",
        ]
        // Absent when the daemon runs without a Security Manager.
        if let pairing = snapshot.pairing { lines.append("  pairing      \(SecurityFormatter.pairingSummary(pairing))") }
        if let bonds = snapshot.bonds { lines.append("  bonds        \(SecurityFormatter.bondsSummary(bonds))") }
        for limitation in snapshot.controllerLimitations ?? [] { lines.append("  controller   \(limitation.text)") }
        for problem in snapshot.bondStoreProblems ?? [] { lines.append("  bond store   \(problem)") }
        lines.append("")
        if snapshot.centrals.isEmpty {
            lines.append("centrals: none connected")
        } else {
            lines.append("centrals (\(snapshot.centrals.count)):")
            for central in snapshot.centrals { lines += centralLines(central) }
        }
        lines.append("")
        if snapshot.sensors.isEmpty {
            lines.append("sensors: none configured")
        } else {
            lines.append("sensors (\(snapshot.sensors.count)):")
            lines += Table.render(snapshot.sensors.map(sensorRow), indent: "  ")
        }
        if let exporters = snapshot.exporters, !exporters.isEmpty {
            lines.append("")
            lines.append("exporters (\(exporters.count)):")
            lines += Table.render(exporters.map(exporterRow), indent: "  ")
            for exporter in exporters {
                if let detail = exporter.detail { lines.append("  \(exporter.name): \(detail)") }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `blesensor status --json`: the snapshot as the protocol carries it, pretty-printed with sorted keys.
    public static func json(_ snapshot: StatusSnapshot) -> String {
        // Strings and numbers only, non-finite numbers as strings: encoding cannot fail.
        guard let data = try? ControlCodec.prettyEncoder().encode(snapshot) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func centralLines(_ central: CentralStatus) -> [String] {
        let subscriptions = central.subscriptions.isEmpty ? "none" : central.subscriptions.joined(separator: ", ")
        return [
            "  \(central.address) (\(central.addressType))  MTU \(central.mtu)  security \(SecurityFormatter.centralSecurity(central))",
            "    subscriptions  \(subscriptions)",
            "    sent \(central.sent)  coalesced \(central.coalesced)  dropped \(central.dropped)  queued \(central.queued)",
        ]
    }

    private static func exporterRow(_ exporter: ExporterStatus) -> [String] {
        var state = exporter.state.rawValue
        if let error = exporter.lastError { state += " (last error: \(error))" }
        return [exporter.name, exporter.endpoint, "sent \(exporter.sent)", "dropped \(exporter.dropped)", state]
    }

    private static func sensorRow(_ sensor: SensorStatus) -> [String] {
        let value = sensor.value.map { NumberText.quantity($0, unit: sensor.unit) } ?? "—"
        var state = SensorLineFormatter.stateText(sensor.state)
        if let error = sensor.error { state += ": \(error)" }
        return [sensor.name, sensor.driver, value, "age \(NumberText.age(sensor.ageSeconds))",
                "\(sensor.reads) ok, \(sensor.failures) failed", state]
    }
}

/// Left-aligned columns two spaces apart; the last column is not padded (no trailing blanks).
enum Table {
    static func render(_ rows: [[String]], indent: String) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            var line = indent
            for (index, cell) in row.enumerated() {
                line += cell
                if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - cell.count + 2) }
            }
            return line
        }
    }
}

import Prometheus

/// The two formats `/metrics` speaks; a scraper asks for OpenMetrics in its Accept header.
public enum ExpositionFormat: Sendable, Equatable {
    case prometheusText
    case openMetrics

    public var contentType: String {
        switch self {
        case .prometheusText: return "text/plain; version=0.0.4; charset=utf-8"
        case .openMetrics: return "application/openmetrics-text; version=1.0.0; charset=utf-8"
        }
    }

    /// OpenMetrics when the Accept header names it (Prometheus sends it first with a q-value);
    /// the text format otherwise, as for curl and a browser.
    public static func negotiate(accept: String?) -> ExpositionFormat {
        guard let accept else { return .prometheusText }
        for range in accept.split(separator: ",") {
            let parameters = range.split(separator: ";").map { $0.trimmedOfBlanks().lowercased() }
            guard parameters.first == "application/openmetrics-text" else { continue }
            // "q=0" means "not acceptable".
            let refused = parameters.dropFirst().contains { $0.hasPrefix("q=") && Double($0.dropFirst(2)) == 0 }
            if !refused { return .openMetrics }
        }
        return .prometheusText
    }

    public func render(_ families: [MetricFamily]) -> [UInt8] {
        switch self {
        case .prometheusText: return Self.prometheusText(families)
        case .openMetrics: return Self.openMetrics(families)
        }
    }

    /// Through swift-prometheus: a registry made for this scrape only, so a series that is gone
    /// (a failed sensor's value) is gone from the output, not left at its last value.
    static func prometheusText(_ families: [MetricFamily]) -> [UInt8] {
        let registry = PrometheusCollectorRegistry()
        for family in families {
            // The whole name as the metric name: our names already carry their unit and `_total`.
            let descriptor = MetricNameDescriptor(metricName: family.name, unitName: "", helpText: family.help)
            for sample in family.samples {
                switch family.kind {
                case .gauge, .info:
                    registry.makeGauge(descriptor: descriptor, labels: sample.labels).set(to: sample.value)
                case .counter:
                    registry.makeCounter(descriptor: descriptor, labels: sample.labels).increment(by: sample.value)
                }
            }
        }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }

    /// OpenMetrics 1.0: family names without `_total` / `_info`, samples with them, `# EOF` last.
    static func openMetrics(_ families: [MetricFamily]) -> [UInt8] {
        var text = ""
        for family in families where !family.samples.isEmpty {
            let type: String
            switch family.kind {
            case .gauge: type = "gauge"
            case .counter: type = "counter"
            case .info: type = "info"
            }
            text += "# TYPE \(family.openMetricsName) \(type)\n"
            text += "# HELP \(family.openMetricsName) \(escapeHelp(family.help))\n"
            for sample in family.samples {
                text += family.name
                if !sample.labels.isEmpty {
                    text += "{" + sample.labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                }
                text += " \(number(sample.value))\n"
            }
        }
        text += "# EOF\n"
        return Array(text.utf8)
    }

    static func escapeLabel(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// OpenMetrics' escaped-string: the same three escapes as a label value.
    static func escapeHelp(_ help: String) -> String { escapeLabel(help) }

    /// Integral values without a fraction (counters read as counts), others as Swift prints them.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

/// One metric family of the exposition, independent of the format it is written in (the
/// Prometheus text format through swift-prometheus, or OpenMetrics).
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case gauge
        /// `name` ends in `_total`, as the Prometheus naming guide wants.
        case counter
        /// OpenMetrics' info type: `name` ends in `_info` and every sample is 1.
        case info
    }

    public struct Sample: Sendable, Equatable {
        /// Label names and values in the order they are written (swift-prometheus's text output
        /// orders families as its registry's dictionary does; OpenMetrics keeps this order).
        public var labels: [(String, String)]
        public var value: Double

        public init(labels: [(String, String)] = [], value: Double) {
            self.labels = labels
            self.value = value
        }

        public static func == (lhs: Sample, rhs: Sample) -> Bool {
            lhs.value == rhs.value && lhs.labels.elementsEqual(rhs.labels) { $0.0 == $1.0 && $0.1 == $1.1 }
        }
    }

    public var name: String
    public var kind: Kind
    public var help: String
    public var samples: [Sample]

    public init(name: String, kind: Kind, help: String, samples: [Sample]) {
        self.name = name
        self.kind = kind
        self.help = help
        self.samples = samples
    }

    /// The name OpenMetrics gives the family: without the `_total` or `_info` its samples carry.
    var openMetricsName: String {
        switch kind {
        case .gauge: return name
        case .counter: return name.hasSuffix("_total") ? String(name.dropLast(6)) : name
        case .info: return name.hasSuffix("_info") ? String(name.dropLast(5)) : name
        }
    }
}

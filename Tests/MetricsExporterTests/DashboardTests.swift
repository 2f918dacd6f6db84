import Foundation
import Testing
@testable import MetricsExporter

/// The shipped Grafana dashboard asks only for metrics the daemon exposes (without a Prometheus
/// server: test_metrics.py also runs every query against a real one).
@Suite struct DashboardTests {
    static let dashboard = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("dashboards/blesensor.json")

    static func expressions() throws -> [String] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dashboard)) as? [String: Any]
        let panels = try #require(json?["panels"] as? [[String: Any]])
        return panels.flatMap { panel in (panel["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
    }

    /// `blesensor_…` and `process_…` names in a PromQL expression.
    static func metricNames(in expression: String) -> [String] {
        var names: [String] = []
        var current = ""
        for character in expression + " " {
            if character.isLetter || character.isNumber || character == "_" || character == ":" {
                current.append(character)
            } else {
                if current.hasPrefix("blesensor_") || current.hasPrefix("process_") { names.append(current) }
                current = ""
            }
        }
        return names
    }

    @Test func everyQueryNamesOnlyExposedMetrics() throws {
        let expressions = try Self.expressions()
        #expect(expressions.count >= 10)
        for expression in expressions {
            let names = Self.metricNames(in: expression)
            #expect(!names.isEmpty, "\(expression) names no blesensor metric")
            for name in names { #expect(SensorMetrics.familyNames.contains(name), "\(expression): \(name) is not exposed") }
        }
    }
}

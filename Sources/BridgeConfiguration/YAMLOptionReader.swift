import Sensors

/// A sensor's `options:` map for its driver's descriptor to read: each problem is reported with
/// the path and line of what was written, into the loader's list.
final class YAMLOptionReader: DriverOptionReader {
    /// Shared by a map's reader and the readers of the maps inside it.
    final class Sink {
        var problems = ProblemList()
    }

    private let map: YAMLMap
    let sink: Sink

    init(map: YAMLMap, sink: Sink = Sink()) {
        self.map = map
        self.sink = sink
    }

    func has(_ key: String) -> Bool { map[key] != nil }

    func isScalar(_ key: String) -> Bool { map[key]?.scalarText != nil }

    func text(_ key: String, expected: String) -> String? {
        map[key]?.text(path: map.path(key), expected: expected, problems: &sink.problems)
    }

    func choice(_ key: String, among choices: [String]) -> String? {
        map[key]?.choice(path: map.path(key), among: choices, problems: &sink.problems)
    }

    func oneOf(_ key: String, _ allowed: [String], unit: String) -> String? {
        guard let value = map[key] else { return nil }
        let list = allowed.joined(separator: ", ")
        guard let text = value.text(path: map.path(key), expected: "one of \(list)\(unit)", problems: &sink.problems) else { return nil }
        guard allowed.contains(text) else {
            sink.problems.add(map.path(key), value, "\(abbreviated(text)) is not one of \(list)\(unit)")
            return nil
        }
        return text
    }

    func oneOf(_ key: String, _ allowed: [Int], unit: String) -> Int? {
        guard let value = map[key] else { return nil }
        let list = allowed.map(String.init).joined(separator: ", ")
        guard let text = value.text(path: map.path(key), expected: "one of \(list)", problems: &sink.problems) else { return nil }
        guard case let .value(number) = parseInteger(text), allowed.contains(number) else {
            sink.problems.add(map.path(key), value, "\(abbreviated(text)) is not one of \(list)\(unit)")
            return nil
        }
        return number
    }

    func number(_ key: String, in range: ClosedRange<Double>, unit: String) -> Double? {
        map[key]?.number(path: map.path(key), in: range, unit: unit, problems: &sink.problems)
    }

    func duration(_ key: String) -> Duration? {
        map[key]?.duration(path: map.path(key), problems: &sink.problems)
    }

    func map(_ key: String, known: [String]) -> (any DriverOptionReader)? {
        guard let inner = map[key]?.map(path: map.path(key), known: known, problems: &sink.problems) else { return nil }
        return YAMLOptionReader(map: inner, sink: sink)
    }

    func problem(at key: String, _ message: String) {
        sink.problems.add(map.path(key), map[key]?.line ?? map.line(of: key) ?? map.line, message)
    }

    func problem(missing key: String, _ message: String) {
        sink.problems.add(map.path(key), map.line, message)
    }

    func spelling(of duration: Duration) -> String { formatDuration(duration) }

    func quoted(_ text: String) -> String { abbreviated(text) }
}

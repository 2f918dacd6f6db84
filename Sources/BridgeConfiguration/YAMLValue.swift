import Yams

/// A composed YAML node with its line, and the typed reads every section needs. Values are read
/// from the scalar's text rather than Yams' resolved tags so `0x48`, `100ms` and `180D` all stay as
/// written and every number format is ours to check and explain.
struct YAMLValue {
    let node: Node

    var line: Int? { node.mark?.line }

    /// A plain `~`, `null` or empty value (`key:` with nothing after it).
    var isNull: Bool {
        guard case let .scalar(scalar) = node, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// The text of a non-null scalar.
    var scalarText: String? {
        guard case let .scalar(scalar) = node, !isNull else { return nil }
        return scalar.string
    }

    var sequence: [YAMLValue]? {
        guard case let .sequence(sequence) = node else { return nil }
        return sequence.map(YAMLValue.init)
    }

    /// What was found, for "expected X, found Y" messages.
    var kindDescription: String {
        switch node {
        case .mapping: return "a map"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case let .scalar(scalar):
            if isNull { return "nothing" }
            return "'\(abbreviated(scalar.string))'"
        }
    }
}

/// Long values (fuzz, pasted blobs) are cut so one problem stays one readable line.
func abbreviated(_ text: String, limit: Int = 40) -> String {
    let flat = text.replacing("\n", with: "\\n")
    return flat.count <= limit ? flat : String(flat.prefix(limit)) + "…"
}

/// A map's entries in file order, after the keys were checked against the section's known keys.
struct YAMLMap {
    struct Entry {
        let key: String
        let keyLine: Int?
        let value: YAMLValue
    }

    let path: String
    let line: Int?
    let entries: [Entry]

    subscript(key: String) -> YAMLValue? {
        entries.first { $0.key == key }?.value
    }

    func contains(_ key: String) -> Bool { entries.contains { $0.key == key } }

    func line(of key: String) -> Int? { entries.first { $0.key == key }?.keyLine }

    func path(_ key: String) -> String { childPath(path, key) }
}

func childPath(_ parent: String, _ key: String) -> String {
    parent.isEmpty ? key : "\(parent).\(key)"
}

extension YAMLValue {
    /// Reads a map, reporting a non-map value and every unknown key (with a did-you-mean).
    /// Unknown keys are dropped so the section still validates the rest.
    func map(path: String, known: [String], problems: inout ProblemList) -> YAMLMap? {
        guard case let .mapping(mapping) = node else {
            problems.add(path, self, "expected a map of \(known.prefix(4).joined(separator: ", "))…, found \(kindDescription)")
            return nil
        }
        var entries: [YAMLMap.Entry] = []
        for (keyNode, valueNode) in mapping {
            let key = YAMLValue(node: keyNode)
            guard let name = key.scalarText else {
                problems.add(path, key, "keys must be names, found \(key.kindDescription)")
                continue
            }
            guard known.contains(name) else {
                problems.add(childPath(path, name), key, unknownKeyMessage(name, known: known))
                continue
            }
            entries.append(.init(key: name, keyLine: key.line, value: YAMLValue(node: valueNode)))
        }
        return YAMLMap(path: path, line: line, entries: entries)
    }

    /// Text of a scalar; lists, maps and empty values are reported.
    func text(path: String, expected: String, problems: inout ProblemList) -> String? {
        guard let text = scalarText else {
            problems.add(path, self, "expected \(expected), found \(kindDescription)")
            return nil
        }
        return text
    }

    /// An integer in `range`, written in decimal or `0x` hex.
    func integer(path: String, in range: ClosedRange<Int>, expected: String, problems: inout ProblemList) -> Int? {
        guard let text = text(path: path, expected: expected, problems: &problems) else { return nil }
        switch parseInteger(text) {
        case let .value(value) where range.contains(value):
            return value
        case .value, .tooLarge:
            problems.add(path, self, "\(abbreviated(text)) is out of range \(range.lowerBound)…\(range.upperBound)")
        case .invalid:
            problems.add(path, self, "\(abbreviated(text)) is not \(expected)")
        }
        return nil
    }

    /// A finite decimal number in `range`.
    func number(path: String, in range: ClosedRange<Double>, unit: String = "", problems: inout ProblemList) -> Double? {
        guard let text = text(path: path, expected: "a number", problems: &problems) else { return nil }
        guard let value = parseDecimal(text) else {
            problems.add(path, self, "\(abbreviated(text)) is not a number")
            return nil
        }
        guard range.contains(value) else {
            problems.add(path, self, "\(abbreviated(text)) is out of range \(formatNumber(range.lowerBound))…\(formatNumber(range.upperBound))\(unit)")
            return nil
        }
        return value
    }

    /// One of a fixed set of words, with a did-you-mean for near misses.
    func choice(path: String, among choices: [String], problems: inout ProblemList) -> String? {
        let expected = "one of \(choices.joined(separator: ", "))"
        guard let text = text(path: path, expected: expected, problems: &problems) else { return nil }
        guard choices.contains(text) else {
            let hint = suggestion(for: text, among: choices).map { "; did you mean '\($0)'?" } ?? " (use \(expected))"
            problems.add(path, self, "'\(abbreviated(text))' is not allowed here\(hint)")
            return nil
        }
        return text
    }

    func boolean(path: String, problems: inout ProblemList) -> Bool? {
        guard let text = text(path: path, expected: "true or false", problems: &problems) else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default:
            problems.add(path, self, "'\(abbreviated(text))' is not true or false")
            return nil
        }
    }

    func duration(path: String, problems: inout ProblemList) -> Duration? {
        guard let text = text(path: path, expected: "a duration like 500ms, 2s or 1m", problems: &problems) else { return nil }
        switch parseDuration(text) {
        case let .success(duration): return duration
        case let .failure(problem):
            problems.add(path, self, problem.description)
            return nil
        }
    }

    /// A list; a single value where a list is expected is reported, not silently wrapped.
    func list(path: String, of expected: String, problems: inout ProblemList) -> [YAMLValue]? {
        guard let items = sequence else {
            problems.add(path, self, "expected a list of \(expected), found \(kindDescription)")
            return nil
        }
        return items
    }
}

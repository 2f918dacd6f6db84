import FoundationEssentials

/// Every check of one run, in the order they were made.
public struct DoctorReport: Sendable, Equatable {
    public var checks: [DoctorCheck]

    public init(checks: [DoctorCheck]) {
        self.checks = checks
    }

    public var failures: Int { checks.count { $0.status == .fail } }
    public var warnings: Int { checks.count { $0.status == .warn } }

    /// 0 when nothing failed, 1 otherwise.
    public var exitStatus: Int32 { failures == 0 ? 0 : 1 }

    /// `ok    config /etc/blesensor/blesensor.yaml (board raspberry-pi-4b, 3 sensors)`, one line a check,
    /// notes and the fix indented below it, and a summary line.
    public var text: String {
        var lines: [String] = []
        for check in checks {
            let label = check.status.label
            lines.append(label + String(repeating: " ", count: max(1, 6 - label.count)) + check.subject
                         + (check.detail.isEmpty ? "" : " " + check.detail))
            lines += check.notes.map { "      " + $0 }
            if let fix = check.fix { lines.append("      fix: " + fix) }
        }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    /// `2 failed, 1 warning`, or `everything checked is fine`.
    public var summary: String {
        guard failures > 0 || warnings > 0 else { return "everything checked is fine" }
        func count(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }
        return [failures > 0 ? "\(failures) failed" : nil, warnings > 0 ? count(warnings, "warning") : nil]
            .compactMap { $0 }.joined(separator: ", ")
    }

    private struct JSONForm: Encodable {
        var ok: Bool
        var failures: Int
        var warnings: Int
        var checks: [Check]

        struct Check: Encodable {
            var area: String
            var status: String
            var subject: String
            var detail: String
            var fix: String?
            var notes: [String]

            // `fix` is null rather than missing, so every check has the same keys.
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(area, forKey: .area)
                try container.encode(status, forKey: .status)
                try container.encode(subject, forKey: .subject)
                try container.encode(detail, forKey: .detail)
                try container.encode(fix, forKey: .fix)
                try container.encode(notes, forKey: .notes)
            }

            enum CodingKeys: String, CodingKey { case area, status, subject, detail, fix, notes }
        }
    }

    /// One JSON object: `ok`, counts, and `checks` with area, status, subject, detail, fix and notes.
    public var json: String {
        let form = JSONForm(ok: failures == 0, failures: failures, warnings: warnings, checks: checks.map {
            JSONForm.Check(area: $0.area.rawValue, status: $0.status.rawValue, subject: $0.subject, detail: $0.detail,
                           fix: $0.fix, notes: $0.notes)
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings and numbers only: encoding cannot fail.
        let data = (try? encoder.encode(form)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// One thing wrong with a configuration or board file, located so the user can go straight to it.
public struct ConfigurationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the document: `sensors[1].address`, `board`, or `raspberry-pi-4b.yaml:i2c-bus` for a board
    /// file; empty for problems of the whole file (unreadable, YAML syntax).
    public var path: String
    /// 1-based line of the offending key or value; nil when there is none (file missing).
    public var line: Int?
    /// 1-based column, given for YAML syntax errors where the line alone is not enough.
    public var column: Int?
    public var message: String
    /// Problems are reported in file order; board-file problems sort at the `board:` key that named the board.
    var sortLine: Int

    public init(path: String, line: Int?, column: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.sortLine = line ?? 0
    }

    /// `sensors[1].address (line 14): 0x4g is not an I2C address (use 0x03…0x77, e.g. 0x48)`.
    public var description: String {
        var location = path
        if let line {
            let place = column.map { "line \(line), column \($0)" } ?? "line \(line)"
            location += location.isEmpty ? place : " (\(place))"
        }
        return location.isEmpty ? message : "\(location): \(message)"
    }

    public static func == (lhs: ConfigurationProblem, rhs: ConfigurationProblem) -> Bool {
        lhs.path == rhs.path && lhs.line == rhs.line && lhs.column == rhs.column && lhs.message == rhs.message
    }
}

/// Every problem found in one load, in file order; loading never stops at the first.
public struct ConfigurationProblems: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the problems are in (the path given to the loader, or the name given with the text).
    public var fileName: String
    public var problems: [ConfigurationProblem]
    /// Set when `board: auto` could not pick a board on this machine (one of `problems` says so too):
    /// `config check` then checks the file against every board auto can pick.
    public var boardDetectionFailure: BoardDetectionError?

    public init(fileName: String, problems: [ConfigurationProblem], boardDetectionFailure: BoardDetectionError? = nil) {
        self.fileName = fileName
        self.problems = problems
        self.boardDetectionFailure = boardDetectionFailure
    }

    public var description: String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return (["\(fileName): \(count):"] + problems.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// Collects problems while a document is walked; every section keeps going after a problem.
struct ProblemList {
    private(set) var problems: [ConfigurationProblem] = []
    /// Why `board: auto` picked no board, when that is one of the problems.
    var boardDetectionFailure: BoardDetectionError?

    var isEmpty: Bool { problems.isEmpty }

    mutating func add(_ path: String, _ line: Int?, _ message: String) {
        problems.append(ConfigurationProblem(path: path, line: line, message: message))
    }

    mutating func append(_ problem: ConfigurationProblem) {
        problems.append(problem)
    }

    mutating func add(_ path: String, _ node: YAMLValue, _ message: String) {
        add(path, node.line, message)
    }

    /// Problems of a board file, kept together at the line of the `board:` key that named it.
    mutating func append(boardProblems: [ConfigurationProblem], at line: Int?) {
        for var problem in boardProblems {
            problem.sortLine = line ?? 0
            problems.append(problem)
        }
    }

    /// File order; the stable sort keeps the walk order of problems on the same line.
    func sorted() -> [ConfigurationProblem] {
        problems.enumerated().sorted { ($0.element.sortLine, $0.offset) < ($1.element.sortLine, $1.offset) }.map(\.element)
    }
}

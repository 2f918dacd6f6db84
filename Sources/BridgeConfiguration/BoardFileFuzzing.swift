import HCITransports

/// For the `board-file` fuzz target: any text parsed as a board file. Parsing is total; a board it
/// accepts has what every board must (a model, an I2C bus in range, a transport that parses).
@_spi(Fuzzing) public enum BoardFileFuzzing {
    /// Returns a description of the first broken invariant, nil when all held.
    public static func run(_ yaml: String) -> String? {
        switch BoardLoader.parse(yaml: yaml, name: "fuzz", fileName: "fuzz.yaml") {
        case let .found(board):
            if board.model.isEmpty { return "a board with an empty model" }
            if !(0...1023).contains(board.i2cBus) { return "I2C bus \(board.i2cBus)" }
            if (try? TransportSpecification(parsing: board.transport)) == nil {
                return "transport '\(board.transport)' does not parse"
            }
            return nil
        case let .invalid(problems):
            return problems.isEmpty ? "an invalid board with no problem named" : nil
        case .notFound:
            return "a board file's text was not found"
        }
    }
}

/// A sensor's `options:` as its driver reads them, from the configuration file or from `sensor
/// read`'s command line: each read checks the value and reports a problem where it was written
/// (path and line), so a driver's descriptor holds its option rules and the loader holds none.
/// Reads return nil for a key that was not given, and for one whose problem was reported.
public protocol DriverOptionReader: AnyObject {
    func has(_ key: String) -> Bool
    /// A scalar was given (not a map or list).
    func isScalar(_ key: String) -> Bool
    func text(_ key: String, expected: String) -> String?
    /// One of a set of words, with a did-you-mean for a near miss.
    func choice(_ key: String, among choices: [String]) -> String?
    /// One of a few values written exactly (numbers as text, so 4 and 4.0 are not confused).
    func oneOf(_ key: String, _ allowed: [String], unit: String) -> String?
    func oneOf(_ key: String, _ allowed: [Int], unit: String) -> Int?
    func number(_ key: String, in range: ClosedRange<Double>, unit: String) -> Double?
    func duration(_ key: String) -> Duration?
    /// The map under `key`, its keys checked against `known`.
    func map(_ key: String, known: [String]) -> (any DriverOptionReader)?
    /// A problem with the value of `key`.
    func problem(at key: String, _ message: String)
    /// A problem with a key that is missing from this map.
    func problem(missing key: String, _ message: String)
    /// How the source spells a duration (`5m`, `1.1s`) and a text it quotes back (cut when long).
    func spelling(of duration: Duration) -> String
    func quoted(_ text: String) -> String
}

extension DriverOptionReader {
    public func oneOf(_ key: String, _ allowed: [String]) -> String? { oneOf(key, allowed, unit: "") }
    public func oneOf(_ key: String, _ allowed: [Int]) -> Int? { oneOf(key, allowed, unit: "") }

    /// `on` or `off`.
    public func onOff(_ key: String) -> Bool? { oneOf(key, ["on", "off"]).map { $0 == "on" } }

    /// A choice among an enumeration's raw values.
    public func choice<Value: RawRepresentable & CaseIterable>(_ key: String, of type: Value.Type) -> Value? where Value.RawValue == String {
        choice(key, among: type.allCases.map(\.rawValue)).flatMap(Value.init(rawValue:))
    }
}

extension SensorDriverDescriptor {
    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {}
    public func checkOptions(_ options: DriverOptions, reader: any DriverOptionReader) {}
}

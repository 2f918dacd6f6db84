#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Yams

/// Reading a file and composing its YAML, each failure as a problem that says what to do.
enum YAMLDocument {
    /// Configuration files are a few kilobytes; anything this large is the wrong file.
    static let maximumSize = 1 << 20

    /// The file's text; unreadable, too large or not UTF-8 becomes one problem naming the path.
    static func contents(path: String) -> Result<String, ConfigurationProblem> {
        func failure(_ message: String) -> Result<String, ConfigurationProblem> {
            .failure(ConfigurationProblem(path: "", line: nil, message: message))
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT {
                return failure("\(path) does not exist: create it (see systemd/blesensor.yaml for a commented example) or pass another file")
            }
            return failure("cannot open \(path): \(String(cString: strerror(error)))")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { readFile(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                let error = errno
                if error == EINTR { continue }
                return failure("cannot read \(path): \(String(cString: strerror(error)))")
            }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= maximumSize else {
                return failure("\(path) is larger than 1 MiB; is it the right file?")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return failure("\(path) is not UTF-8 text")
        }
        return .success(text)
    }

    /// The document's root node (nil for an empty document); a syntax error becomes a problem with
    /// its line and column. `pathPrefix` names the board file for board documents.
    static func compose(_ text: String, pathPrefix: String = "") -> Result<YAMLValue?, ConfigurationProblem> {
        do {
            return .success(try Yams.compose(yaml: text).map(YAMLValue.init))
        } catch let error as YamlError {
            return .failure(problem(for: error, pathPrefix: pathPrefix))
        } catch {
            return .failure(ConfigurationProblem(path: pathPrefix, line: nil, message: "not valid YAML: \(error)"))
        }
    }

    private static func problem(for error: YamlError, pathPrefix: String) -> ConfigurationProblem {
        func located(_ problem: String, _ context: YamlError.Context?, _ mark: Mark) -> ConfigurationProblem {
            let detail = context.map { "\(problem) \($0.text) at line \($0.mark.line)" } ?? problem
            return ConfigurationProblem(path: pathPrefix, line: mark.line, column: mark.column, message: "YAML syntax error: \(detail)")
        }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            return located(problem, context, mark)
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
            return ConfigurationProblem(path: pathPrefix, line: context.mark.line, column: context.mark.column,
                                        message: "\(keys) given twice in the same map; keep one")
        case let .reader(problem, offset, _, _):
            let place = offset.map { " at byte \($0)" } ?? ""
            return ConfigurationProblem(path: pathPrefix, line: nil, message: "not readable as YAML\(place): \(problem)")
        default:
            return ConfigurationProblem(path: pathPrefix, line: nil, message: "not valid YAML: \(error)")
        }
    }
}

/// The C `read`, named apart from `YAMLDocument`'s members.
private func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `*.yaml` names in a directory, without the extension, for "available boards" messages.
func yamlStems(in directory: String) -> [String] {
    guard let handle = opendir(directory) else { return [] }
    defer { closedir(handle) }
    var stems: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name.hasSuffix(".yaml"), name.count > 5, !name.hasPrefix(".") { stems.append(String(name.dropLast(5))) }
    }
    return stems
}

import BLECore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `board: auto` learns which machine it runs on: the device tree's model text
/// (`Raspberry Pi 4 Model B Rev 1.5`), which the firmware fills in on every Raspberry Pi.
public struct BoardDetection: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// The first of these files that exists.
        case files([String])
        /// This text, as if the device tree held it (tests; `config check` for another machine).
        case model(String)
    }

    public var source: Source

    public init(source: Source) { self.source = source }

    /// `/proc/device-tree/model`, else the same node through sysfs.
    public static let machine = BoardDetection(source: .files(["/proc/device-tree/model", "/sys/firmware/devicetree/base/model"]))

    public static func assuming(model: String) -> BoardDetection { BoardDetection(source: .model(model)) }

    /// Device-tree strings are short; anything longer is not a model.
    static let maximumModelBytes = 256

    /// The model and where it was read. Total: a missing, unreadable, oversized, empty or binary file is an error.
    public func readModel() -> Result<(model: String, origin: String), BoardDetectionError> {
        switch source {
        case let .model(text): return Self.parse(Array(text.utf8), origin: "the given model")
        case let .files(paths):
            for path in paths {
                switch Self.bytes(at: path) {
                case .success(nil): continue
                case let .success(bytes?): return Self.parse(bytes, origin: path)
                case let .failure(error): return .failure(error)
                }
            }
            return .failure(.noDeviceTree(paths))
        }
    }

    /// The text before the first NUL (the device tree terminates its strings), trimmed, printable.
    static func parse(_ bytes: [UInt8], origin: String) -> Result<(model: String, origin: String), BoardDetectionError> {
        guard bytes.count <= maximumModelBytes else { return .failure(.malformed(origin, "is longer than \(maximumModelBytes) bytes")) }
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        var trimmed = Substring(text)
        while let first = trimmed.first, first.isWhitespace { trimmed.removeFirst() }
        while let last = trimmed.last, last.isWhitespace { trimmed.removeLast() }
        guard !trimmed.isEmpty else { return .failure(.malformed(origin, "is empty")) }
        guard trimmed.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && $0 != "\u{FFFD}" }) else {
            return .failure(.malformed(origin, "holds '\(trimmed.printableExcerpt())', which is not a model name"))
        }
        return .success((String(trimmed), origin))
    }

    /// The file's first bytes (one more than a model may have), nil when it does not exist.
    private static func bytes(at path: String) -> Result<[UInt8]?, BoardDetectionError> {
        switch BoundedFile.read(path, limit: maximumModelBytes + 1) {
        case let .success(bytes): return .success(bytes)
        case let .failure(failure) where failure.isMissing: return .success(nil)
        case let .failure(failure): return .failure(.unreadable(path, failure.description))
        }
    }

    /// The board whose `device-tree-models` entry is the longest one matching `model` (at a word boundary).
    public static func pick(model: String, among boards: [BoardProfile]) -> Result<BoardProfile, BoardDetectionError> {
        var best: (length: Int, boards: [BoardProfile]) = (0, [])
        for board in boards {
            let length = board.deviceTreeModels.filter { model == $0 || model.hasPrefix($0 + " ") }.map(\.count).max() ?? 0
            if length == 0 || length < best.length { continue }
            if length > best.length { best = (length, []) }
            if !best.boards.contains(where: { $0.name == board.name }) { best.boards.append(board) }
        }
        switch best.boards.count {
        case 0: return .failure(.unknownModel(model, known: boards.filter { !$0.deviceTreeModels.isEmpty }.map(\.name).sorted()))
        case 1: return .success(best.boards[0])
        default: return .failure(.ambiguous(model, boards: best.boards.map(\.name).sorted()))
        }
    }
}

/// Why `board: auto` could not pick a board. The loader adds the list of boards to choose from.
public enum BoardDetectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// None of the device-tree files exists: not a Raspberry Pi (nor another device-tree machine).
    case noDeviceTree([String])
    case unreadable(String, String)
    case malformed(String, String)
    /// No board lists this model; `known` are the boards `auto` can pick.
    case unknownModel(String, known: [String])
    /// Two boards list the same model text.
    case ambiguous(String, boards: [String])

    public var description: String {
        switch self {
        case let .noDeviceTree(paths):
            return "this machine has no device-tree model (\(paths.joined(separator: ", ")) do not exist), so it is not a Raspberry Pi and `auto` cannot pick a board"
        case let .unreadable(path, reason):
            return "cannot read the device-tree model \(path): \(reason)"
        case let .malformed(origin, problem):
            return "\(origin): the device-tree model \(problem)"
        case let .unknownModel(model, known):
            let list = known.isEmpty ? "no installed board lists device-tree models" : "it picks \(known.joined(separator: ", ")) by model"
            return "the device-tree model '\(model)' is not one `auto` knows (\(list)); name the board with the same I2C bus and GPIO chips, adjusting it with board-overrides: if needed"
        case let .ambiguous(model, boards):
            return "the device-tree model '\(model)' is listed by several boards (\(boards.joined(separator: ", "))): remove it from all but one, or name the board"
        }
    }
}

/// What `board: auto` picked, for the log and `config check`.
public struct BoardChoice: Sendable, Equatable, CustomStringConvertible {
    /// The machine's model text (`Raspberry Pi 400 Rev 1.0`).
    public var deviceTreeModel: String
    /// The file it was read from, or `the given model`.
    public var origin: String
    /// The board profile picked (`raspberry-pi-4b`).
    public var board: String
    /// That profile's own model text (`Raspberry Pi 4 Model B`).
    public var profileModel: String

    public init(deviceTreeModel: String, origin: String, board: String, profileModel: String) {
        self.deviceTreeModel = deviceTreeModel
        self.origin = origin
        self.board = board
        self.profileModel = profileModel
    }

    /// `board auto: 'Raspberry Pi 400 Rev 1.0' uses board raspberry-pi-4b (the Raspberry Pi 4 Model B profile)`.
    public var description: String {
        "board auto: '\(deviceTreeModel)' uses board \(board) (the \(profileModel) profile)"
    }
}

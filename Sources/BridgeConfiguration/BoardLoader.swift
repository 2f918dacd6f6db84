import HCITransports

/// Board profiles: `boards/NAME.yaml`, looked up by name in the given directories in order.
enum BoardLoader {
    static let keys = ["model", "i2c-bus", "gpio-chips", "transport", "simulated", "device-tree-models"]

    /// The simulated board is built in too, so `blesensord --board simulated` works from a bare binary
    /// with no share directory installed. Kept equal to boards/simulated.yaml by a test.
    static let builtIn: [String: String] = ["simulated": """
        model: Simulated board
        i2c-bus: 1
        gpio-chips: []
        transport: virtual
        simulated: true
        """]

    enum Lookup {
        case found(BoardProfile)
        /// The board file exists but has problems; their paths are prefixed with the file's path.
        case invalid([ConfigurationProblem])
        case notFound
    }

    /// The board `name` from the first directory that has `name.yaml`, else the built-in one.
    static func load(name: String, directories: [String]) -> Lookup {
        for directory in directories {
            let path = directory.hasSuffix("/") ? directory + name + ".yaml" : "\(directory)/\(name).yaml"
            guard ProcessEnvironment.fileExists(path) else { continue }
            switch YAMLDocument.contents(path: path) {
            case let .success(text): return parse(yaml: text, name: name, fileName: path)
            case var .failure(problem):
                problem.path = path
                return .invalid([problem])
            }
        }
        if let text = builtIn[name] { return parse(yaml: text, name: name, fileName: "built-in \(name).yaml") }
        return .notFound
    }

    /// `board: auto`: the board whose device-tree models match this machine's. On failure, the
    /// reason and the problems of any board file that could not be read (it may have been the one).
    static func resolveAuto(detection: BoardDetection, directories: [String])
        -> Result<(BoardProfile, BoardChoice), AutoBoardFailure> {
        let model: String, origin: String
        switch detection.readModel() {
        case let .success(found): (model, origin) = found
        case let .failure(error): return .failure(AutoBoardFailure(reason: error, boardProblems: []))
        }
        var candidates: [BoardProfile] = []
        var broken: [ConfigurationProblem] = []
        for name in availableBoards(in: directories) where name != autoName {
            switch load(name: name, directories: directories) {
            case let .found(board): candidates.append(board)
            case let .invalid(problems): broken += problems
            case .notFound: break
            }
        }
        switch BoardDetection.pick(model: model, among: candidates) {
        case var .success(board):
            let choice = BoardChoice(deviceTreeModel: model, origin: origin, board: board.name, profileModel: board.model)
            // The machine's own text names the hardware better than the profile's (Device Information).
            board.model = model
            return .success((board, choice))
        case let .failure(error):
            return .failure(AutoBoardFailure(reason: error, boardProblems: broken))
        }
    }

    /// The board name that asks for `resolveAuto`.
    static let autoName = "auto"

    struct AutoBoardFailure: Error {
        var reason: BoardDetectionError
        var boardProblems: [ConfigurationProblem]
    }

    /// Every board name the directories (and the built-ins) offer, sorted.
    static func availableBoards(in directories: [String]) -> [String] {
        Set(directories.flatMap(yamlStems(in:)) + builtIn.keys).sorted()
    }

    /// Board names are file stems: lowercase words and dashes, so a name can never walk out of the directory.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
    }

    static func parse(yaml: String, name: String, fileName: String) -> Lookup {
        let prefix = fileName + ":"
        let root: YAMLValue?
        switch YAMLDocument.compose(yaml, pathPrefix: fileName) {
        case let .success(value): root = value
        case let .failure(problem): return .invalid([problem])
        }
        var problems = ProblemList()
        guard let root else {
            return .invalid([ConfigurationProblem(path: fileName, line: nil, message: "the board file is empty; it needs \(keys.joined(separator: ", "))")])
        }
        guard let map = root.map(path: "", known: keys, problems: &problems) else {
            return .invalid(prefixed(problems.sorted(), prefix))
        }
        func required(_ key: String) -> YAMLValue? {
            guard let value = map[key] else {
                problems.add(key, map.line, "missing; every board file sets \(key)")
                return nil
            }
            return value
        }
        let model = required("model")?.text(path: "model", expected: "the board's model name", problems: &problems)
        if let model, model.isEmpty { problems.add("model", map["model"]?.line, "the model is empty") }
        let i2cBus = required("i2c-bus")?.integer(path: "i2c-bus", in: 0...1023, expected: "an I2C bus number like 1", problems: &problems)
        let chips = required("gpio-chips").flatMap { Self.gpioChips($0, path: "gpio-chips", problems: &problems) }
        let controller = required("transport").flatMap { Self.transport($0, path: "transport", problems: &problems) }
        var simulated: Bool? = false
        if let value = map["simulated"] { simulated = value.boolean(path: "simulated", problems: &problems) }
        var deviceTreeModels: [String]? = []
        if let value = map["device-tree-models"] { deviceTreeModels = Self.deviceTreeModels(value, problems: &problems) }
        guard problems.isEmpty, let model, let i2cBus, let chips, let controller, let simulated, let deviceTreeModels else {
            return .invalid(prefixed(problems.sorted(), prefix))
        }
        return .found(BoardProfile(name: name, model: model, i2cBus: i2cBus, gpioChips: chips, transport: controller,
                                   simulated: simulated, deviceTreeModels: deviceTreeModels))
    }

    /// The device-tree model texts `board: auto` picks this board for: each non-empty, once.
    static func deviceTreeModels(_ value: YAMLValue, problems: inout ProblemList) -> [String]? {
        let path = "device-tree-models"
        guard let items = value.list(path: path, of: "device-tree models like \"Raspberry Pi 4 Model B\"", problems: &problems) else { return nil }
        var models: [String] = []
        var valid = true
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let model = item.text(path: itemPath, expected: "a model like \"Raspberry Pi 4 Model B\"", problems: &problems) else {
                valid = false
                continue
            }
            if model.allSatisfy(\.isWhitespace) {
                problems.add(itemPath, item, "the model is empty")
                valid = false
            } else if models.contains(model) {
                problems.add(itemPath, item, "'\(abbreviated(model))' is listed twice")
                valid = false
            } else {
                models.append(model)
            }
        }
        return valid ? models : nil
    }

    /// A list of chip names (`gpiochip0`) or device paths, each once.
    static func gpioChips(_ value: YAMLValue, path: String, problems: inout ProblemList) -> [String]? {
        guard let items = value.list(path: path, of: "GPIO chip names like gpiochip0", problems: &problems) else { return nil }
        var chips: [String] = []
        var valid = true
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let chip = item.text(path: itemPath, expected: "a chip name like gpiochip0", problems: &problems) else {
                valid = false
                continue
            }
            if chip.isEmpty || chip.contains(where: \.isWhitespace) {
                problems.add(itemPath, item, "'\(abbreviated(chip))' is not a GPIO chip name like gpiochip0 or /dev/gpiochip0")
                valid = false
            } else if chips.contains(chip) {
                problems.add(itemPath, item, "\(chip) is listed twice")
                valid = false
            } else {
                chips.append(chip)
            }
        }
        return valid ? chips : nil
    }

    /// `auto` or a transport the daemon can open; the parser's own message says what is wrong.
    static func transport(_ value: YAMLValue, path: String, problems: inout ProblemList) -> String? {
        guard let text = value.text(path: path, expected: "a transport like hci:0, virtual or auto", problems: &problems) else { return nil }
        if text == "auto" { return text }
        do {
            _ = try TransportSpecification(parsing: text)
            return text
        } catch {
            problems.add(path, value, error.description)
            return nil
        }
    }

    private static func prefixed(_ problems: [ConfigurationProblem], _ prefix: String) -> [ConfigurationProblem] {
        problems.map { problem in
            var problem = problem
            problem.path = prefix + problem.path
            return problem
        }
    }
}

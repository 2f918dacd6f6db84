import Foundation
import Testing
@testable import BridgeConfiguration

/// `board: auto`: the board is picked from the device-tree model, read from fake model files.
@Suite struct BoardAutoTests {
    static let sensors = "sensors: [{name: a, driver: tmp102}]"

    static func load(_ yaml: String, detection: BoardDetection, boards: [String] = [repositoryBoards]) -> Result<BridgeConfiguration, ConfigurationProblems> {
        ConfigurationLoader.load(yaml: yaml, fileName: "test.yaml", boardsDirectories: boards, environment: [:], boardDetection: detection)
    }

    static func problems(_ yaml: String, detection: BoardDetection, boards: [String] = [repositoryBoards]) -> [String] {
        switch load(yaml, detection: detection, boards: boards) {
        case .success: return []
        case let .failure(problems): return problems.problems.map(\.description)
        }
    }

    /// A temporary directory, removed when the value is released.
    final class Directory: @unchecked Sendable {
        let path = NSTemporaryDirectory() + "board-auto-\(UUID().uuidString)"
        init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        @discardableResult
        func write(_ name: String, _ bytes: [UInt8]) -> String {
            let file = "\(path)/\(name)"
            _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
            return file
        }
    }

    @Test(arguments: [
        ("Raspberry Pi 4 Model B Rev 1.5", "raspberry-pi-4b"),
        ("Raspberry Pi 400 Rev 1.0", "raspberry-pi-4b"),
        ("Raspberry Pi Compute Module 4 Rev 1.0", "raspberry-pi-4b"),
        ("Raspberry Pi Compute Module 4S Rev 1.0", "raspberry-pi-4b"),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", "raspberry-pi-3b-plus"),
        ("Raspberry Pi 3 Model B Rev 1.2", "raspberry-pi-3b-plus"),
        ("Raspberry Pi 3 Model A Plus Rev 1.0", "raspberry-pi-3b-plus"),
        ("Raspberry Pi Compute Module 3 Plus Rev 1.0", "raspberry-pi-3b-plus"),
        ("Raspberry Pi 5 Model B Rev 1.0", "raspberry-pi-5"),
        ("Raspberry Pi 500 Rev 1.0", "raspberry-pi-5"),
        ("Raspberry Pi Compute Module 5 Rev 1.0", "raspberry-pi-5"),
        ("Raspberry Pi Zero 2 W Rev 1.0", "raspberry-pi-zero-2-w"),
    ])
    func eachSupportedPiPicksTheProfileWithItsLayout(model: String, board: String) throws {
        let configuration = try Self.load("board: auto\n" + Self.sensors, detection: .assuming(model: model)).get()
        #expect(configuration.board.name == board)
        // The machine's own model names the hardware (the Device Information default).
        #expect(configuration.board.model == model)
        #expect(configuration.deviceInformation.model == model)
        #expect(configuration.transport == "hci:0")
        #expect(!configuration.board.simulated)
        let choice = try #require(configuration.boardChoice)
        #expect(choice.board == board)
        #expect(choice.deviceTreeModel == model)
        #expect(choice.description.hasPrefix("board auto: '\(model)' uses board \(board) (the Raspberry Pi"))
    }

    @Test func theDeviceTreeFileIsNulTerminatedAndTheSysfsPathIsTheFallback() throws {
        let directory = Directory()
        let file = directory.write("model", Array("Raspberry Pi 400 Rev 1.0".utf8) + [0])
        let detection = BoardDetection(source: .files([directory.path + "/missing", file]))
        let configuration = try Self.load("board: auto\n" + Self.sensors, detection: detection).get()
        #expect(configuration.board.name == "raspberry-pi-4b")
        #expect(configuration.boardChoice == BoardChoice(deviceTreeModel: "Raspberry Pi 400 Rev 1.0", origin: file,
                                                         board: "raspberry-pi-4b", profileModel: "Raspberry Pi 4 Model B"))
        #expect(BoardDetection.machine.source == .files(["/proc/device-tree/model", "/sys/firmware/devicetree/base/model"]))
    }

    @Test func aMachineWithoutADeviceTreeIsAnErrorNotTheSimulatedBoard() {
        let directory = Directory()
        let missing = [directory.path + "/proc-model", directory.path + "/sys-model"]
        #expect(Self.problems("board: auto\n" + Self.sensors, detection: BoardDetection(source: .files(missing))) == [
            "board (line 1): auto: this machine has no device-tree model (\(missing[0]), \(missing[1]) do not exist), so it is not a Raspberry Pi and `auto` cannot pick a board; set board: to one of raspberry-pi-3b-plus, raspberry-pi-4b, raspberry-pi-5, raspberry-pi-zero-2-w, simulated",
        ])
    }

    @Test(arguments: ["Raspberry Pi 2 Model B Rev 1.1", "Raspberry Pi Zero W Rev 1.1", "Raspberry Pi 50", "Raspberry Pi 4", "Radxa ROCK 4SE"])
    func anUnknownModelIsNamedWithTheBoardsToChooseFrom(model: String) {
        #expect(Self.problems("board: auto\n" + Self.sensors, detection: .assuming(model: model)) == [
            "board (line 1): auto: the device-tree model '\(model)' is not one `auto` knows (it picks raspberry-pi-3b-plus, raspberry-pi-4b, raspberry-pi-5, raspberry-pi-zero-2-w by model); name the board with the same I2C bus and GPIO chips, adjusting it with board-overrides: if needed; set board: to one of raspberry-pi-3b-plus, raspberry-pi-4b, raspberry-pi-5, raspberry-pi-zero-2-w, simulated",
        ])
    }

    @Test(arguments: [
        ([UInt8](), "is empty"),
        ([0, 0], "is empty"),
        (Array(" \n".utf8) + [0], "is empty"),
        ([0xFF, 0xFE, 0x41], "holds '\u{FFFD}\u{FFFD}A', which is not a model name"),
        (Array("Raspberry\u{1B}[2J Pi".utf8), "holds 'Raspberry?[2J Pi', which is not a model name"),
        ([UInt8](repeating: 0x41, count: 10_000), "is longer than 256 bytes"),
    ])
    func aDamagedModelFileIsAClearErrorNeverATrap(bytes: [UInt8], problem: String) throws {
        let directory = Directory()
        let file = directory.write("model", bytes)
        let found = Self.problems("board: auto\n" + Self.sensors, detection: BoardDetection(source: .files([file])))
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("board (line 1): auto: \(file): the device-tree model \(problem); set board: to one of") == true, "\(found)")
    }

    @Test func twoBoardsClaimingAModelAreReportedAndABrokenBoardFileIsShownWhenNothingMatched() {
        let directory = Directory()
        let board = "i2c-bus: 1\ngpio-chips: [gpiochip0]\ntransport: hci:0\n"
        directory.write("one.yaml", Array("model: One\ndevice-tree-models: [Acme Board]\n\(board)".utf8))
        directory.write("two.yaml", Array("model: Two\ndevice-tree-models: [Acme Board]\n\(board)".utf8))
        #expect(Self.problems("board: auto\n" + Self.sensors, detection: .assuming(model: "Acme Board v2"), boards: [directory.path]).first?
            .contains("the device-tree model 'Acme Board v2' is listed by several boards (one, two)") == true)

        directory.write("three.yaml", Array("model: Three\ndevice-tree-models: [Acme Other]\n\(board)colour: red\n".utf8))
        let found = Self.problems("board: auto\n" + Self.sensors, detection: .assuming(model: "Something Else"), boards: [directory.path])
        #expect(found.count == 2)
        #expect(found.last == "\(directory.path)/three.yaml:colour (line 6): unknown key 'colour'; expected one of: model, i2c-bus, gpio-chips, transport, simulated, device-tree-models")
    }

    @Test func overridesApplyToTheBoardAutoPicked() throws {
        let yaml = "board: auto\nboard-overrides: {i2c-bus: 3}\n" + Self.sensors
        let configuration = try Self.load(yaml, detection: .assuming(model: "Raspberry Pi 400 Rev 1.0")).get()
        #expect(configuration.board.name == "raspberry-pi-4b")
        #expect(configuration.board.i2cBus == 3)
        #expect(configuration.sensors[0].i2cBus == 3)
    }

    @Test func deviceTreeModelsInABoardFileAreChecked() {
        guard case let .invalid(found) = BoardLoader.parse(yaml: """
            model: X
            i2c-bus: 1
            gpio-chips: []
            transport: hci:0
            device-tree-models: [Acme, " ", Acme, [1]]
            """, name: "x", fileName: "x.yaml") else {
            Issue.record("a broken board loaded")
            return
        }
        #expect(found.map(\.description) == [
            "x.yaml:device-tree-models[1] (line 5): the model is empty",
            "x.yaml:device-tree-models[2] (line 5): 'Acme' is listed twice",
            "x.yaml:device-tree-models[3] (line 5): expected a model like \"Raspberry Pi 4 Model B\", found a list",
        ])
        #expect(Self.problems("board: auto\n" + Self.sensors, detection: .assuming(model: "x")).count == 1)
    }
}

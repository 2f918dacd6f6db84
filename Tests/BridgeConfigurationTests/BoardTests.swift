import Testing
@testable import BridgeConfiguration

@Suite struct BoardTests {
    static let boards = ["raspberry-pi-zero-2-w", "raspberry-pi-3b-plus", "raspberry-pi-4b", "raspberry-pi-5", "simulated"]

    @Test(arguments: boards) func eachShippedBoardLoads(name: String) throws {
        guard case let .found(board) = BoardLoader.load(name: name, directories: [repositoryBoards]) else {
            Issue.record("\(name).yaml did not load")
            return
        }
        #expect(board.name == name)
        #expect(board.i2cBus == 1)
        #expect(board.transport == (name == "simulated" ? "virtual" : "hci:0"))
        #expect(board.simulated == (name == "simulated"))
        // The same board through a configuration file.
        let configuration = try load("board: \(name)\nsensors: [{name: a, driver: tmp102}]").get()
        #expect(configuration.board == board)
    }

    @Test func piFiveSearchesBothHeaderChipsInKernelOrder() throws {
        let board = try load("board: raspberry-pi-5\nsensors: [{name: a, driver: cpu-temp}]").get().board
        #expect(board.gpioChips == ["gpiochip0", "gpiochip4"])
        for older in ["raspberry-pi-zero-2-w", "raspberry-pi-3b-plus", "raspberry-pi-4b"] {
            #expect(try load("board: \(older)\nsensors: [{name: a, driver: cpu-temp}]").get().board.gpioChips == ["gpiochip0"])
        }
    }

    @Test func builtInSimulatedBoardMatchesTheShippedFile() throws {
        guard case let .found(file) = BoardLoader.load(name: "simulated", directories: [repositoryBoards]),
              case let .found(builtIn) = BoardLoader.load(name: "simulated", directories: []) else {
            Issue.record("the simulated board did not load")
            return
        }
        #expect(file == builtIn)
    }

    @Test func overridesReplaceOnlyWhatTheyName() throws {
        let yaml = """
            board: raspberry-pi-4b
            board-overrides: {i2c-bus: 3, gpio-chips: [gpiochip1, gpiochip0], model: Pi 4 in a case}
            sensors: [{name: a, driver: tmp102}]
            """
        let configuration = try load(yaml).get()
        #expect(configuration.board == BoardProfile(name: "raspberry-pi-4b", model: "Pi 4 in a case", i2cBus: 3,
                                                    gpioChips: ["gpiochip1", "gpiochip0"], transport: "hci:0", simulated: false,
                                                    deviceTreeModels: pi4Models))
        #expect(configuration.sensors[0].i2cBus == 3)
        #expect(configuration.deviceInformation.model == "Pi 4 in a case")
        #expect(problems("board: raspberry-pi-4b\nboard-overrides: {transport: hci:1, gpio-chips: [a, a]}\nsensors: [{name: a, driver: tmp102}]") == [
            "board-overrides.transport (line 2): unknown key 'transport'; expected one of: model, i2c-bus, gpio-chips",
            "board-overrides.gpio-chips[1] (line 2): a is listed twice",
        ])
    }

    @Test func boardFileProblemsArePrefixedWithTheFileAndSortAtTheBoardKey() {
        let yaml = """
            model: Broken
            i2c-bus: -1
            gpio-chips: gpiochip0
            transport: bluetooth
            simulated: maybe
            colour: green
            """
        guard case let .invalid(found) = BoardLoader.parse(yaml: yaml, name: "broken", fileName: "/b/broken.yaml") else {
            Issue.record("a broken board loaded")
            return
        }
        #expect(found.map(\.description) == [
            "/b/broken.yaml:i2c-bus (line 2): -1 is out of range 0…1023",
            "/b/broken.yaml:gpio-chips (line 3): expected a list of GPIO chip names like gpiochip0, found 'gpiochip0'",
            "/b/broken.yaml:transport (line 4): invalid transport 'bluetooth': unknown transport 'bluetooth'. Use tcp:HOST:PORT, hci:N, uart:/dev/ttyX?baud=115200&flow=on or virtual",
            "/b/broken.yaml:simulated (line 5): 'maybe' is not true or false",
            "/b/broken.yaml:colour (line 6): unknown key 'colour'; expected one of: model, i2c-bus, gpio-chips, transport, simulated, device-tree-models",
        ])
        #expect(problems("board: ../etc/passwd\nsensors: [{name: a, driver: tmp102}]").first?.hasPrefix("board (line 1): '../etc/passwd' is not a board name") == true)
    }

    @Test func defaultDirectoriesEndWithTheCheckoutBoards() {
        let directories = ConfigurationLoader.defaultBoardsDirectories(
            environment: ["BLESENSOR_BOARDS_DIR": "/opt/boards"],
            executablePath: repositoryRoot + "/.build/aarch64-unknown-linux-gnu/debug/blesensord")
        #expect(directories == [
            "/opt/boards",
            "/usr/share/blesensor/boards",
            repositoryRoot + "/.build/aarch64-unknown-linux-gnu/share/blesensor/boards",
            repositoryBoards,
        ])
        #expect(ConfigurationLoader.defaultBoardsDirectories(environment: [:], executablePath: "/usr/local/bin/blesensord")
            == ["/usr/share/blesensor/boards", "/usr/local/share/blesensor/boards"])
    }

    @Test func aRelativeExecutablePathIsTakenFromTheWorkingDirectory() {
        let directories = ConfigurationLoader.defaultBoardsDirectories(
            environment: [:], executablePath: ".build/x86_64-unknown-linux-gnu/debug/blesensord", currentDirectory: repositoryRoot)
        #expect(directories.last == repositoryBoards)
    }
}

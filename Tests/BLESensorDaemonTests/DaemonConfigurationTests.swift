import BLECore
import BridgeConfiguration
import Foundation
import Testing
@testable import BLESensorDaemon

@Suite struct AddressStoreTests {
    func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "blesensor-tests-\(UUID().uuidString)/nested"
    }

    @Test func generatesOnceThenKeepsTheSameAddress() throws {
        let store = AddressStore(directory: temporaryDirectory())
        let first = try store.loadOrCreate()
        #expect(first.isValidRandomStatic)
        let second = try store.loadOrCreate()
        #expect(first == second)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text == first.description + "\n")
    }

    @Test func aCorruptFileIsAClearErrorNotANewIdentity() throws {
        let store = AddressStore(directory: temporaryDirectory())
        _ = try store.loadOrCreate()
        try "00:11:22:33:44:55\n".write(toFile: store.path, atomically: true, encoding: .utf8)
        #expect {
            try store.loadOrCreate()
        } throws: { error in
            guard let error = error as? DaemonError, case let .damagedStateFile(path, reason) = error else { return false }
            // Its own exit status, which the unit does not restart on (RestartPreventExitStatus=).
            return path == store.path && reason.contains("not a random static address") && reason.contains("delete the file")
                && error.exitStatus == DaemonError.damagedStateExitStatus
        }
    }

    @Test func theUnitDoesNotRestartOnAConfigurationOrAStateItCannotMend() throws {
        // This file is Tests/BLESensorDaemonTests/DaemonConfigurationTests.swift.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let unit = try String(contentsOf: root.appendingPathComponent("systemd/blesensord.service"), encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("RestartPreventExitStatus=") })
        let statuses = Set(line.dropFirst("RestartPreventExitStatus=".count).split(separator: " ").compactMap { Int32($0) })
        #expect(statuses == [78, DaemonError.damagedStateExitStatus, DaemonError.captureFileExitStatus])
        #expect(DaemonError.stateFile(path: "/x", reason: "cannot be written").exitStatus == 1)
        #expect(DaemonError.transport(.snoopFileFailed(path: "/x", reason: "it exists already")).exitStatus == DaemonError.captureFileExitStatus)
        #expect(DaemonError.transport(.disconnected("hci0")).exitStatus == 1)
        #expect(DaemonError.configuration(key: "security.admin-group", reason: "no such group").exitStatus == 78)
    }

    @Test func unwritableDirectorySaysWhatToDo() {
        let store = AddressStore(directory: "/proc/blesensor-cannot-exist")
        #expect {
            try store.loadOrCreate()
        } throws: { error in
            "\(error)".contains("--state-dir")
        }
    }
}

@Suite struct DaemonConfigurationTests {
    @Test func addressModes() {
        #expect(DaemonConfiguration.parseAddressMode("random") == .success(.persistentRandom))
        #expect(DaemonConfiguration.parseAddressMode("PUBLIC") == .success(.publicAddress))
        #expect(DaemonConfiguration.parseAddressMode("C0:11:22:33:44:55") == .success(.fixedRandom(BluetoothAddress("C0:11:22:33:44:55")!)))
        guard case let .failure(error) = DaemonConfiguration.parseAddressMode("00:11:22:33:44:55") else {
            Issue.record("a non-static address was accepted")
            return
        }
        #expect(error.description.contains("two most significant bits"))
        guard case .failure = DaemonConfiguration.parseAddressMode("nonsense") else {
            Issue.record("garbage accepted")
            return
        }
    }

    @Test func pathsFollowSystemdThenRootThenXDG() {
        #expect(PathSettings.defaults(environment: ["STATE_DIRECTORY": "/var/lib/private/blesensor"], userID: 1000).stateDirectory == "/var/lib/private/blesensor")
        #expect(PathSettings.defaults(environment: [:], userID: 0).stateDirectory == "/var/lib/blesensor")
        #expect(PathSettings.defaults(environment: ["XDG_STATE_HOME": "/x"], userID: 1000).stateDirectory == "/x/blesensor")
        #expect(PathSettings.defaults(environment: ["HOME": "/home/pi"], userID: 1000).stateDirectory == "/home/pi/.local/state/blesensor")
    }
}

@Suite struct TransportResolverTests {
    @Test func autoPicksTheAdapterWhenPresentElseDemoMode() throws {
        var resolver = TransportResolver()
        resolver.adapterExists = { _ in false }
        let demo = try resolver.resolve("auto", logger: .init(label: "test"))
        #expect(demo.specification == .virtual)
        #expect(demo.radio != nil)
        resolver.adapterExists = { index in index == 0 }
        let hardware = try resolver.resolve("auto", logger: .init(label: "test"))
        #expect(hardware.specification == .hciUserChannel(index: 0))
        #expect(hardware.radio == nil)
    }

    @Test func malformedTransportIsAnActionableError() {
        #expect {
            try TransportResolver().resolve("tcp:localhost", logger: .init(label: "test"))
        } throws: { error in
            "\(error)".contains("tcp:HOST:PORT")
        }
    }
}

@Suite struct AddressStoreDurabilityTests {
    func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "blesensor-tests-\(UUID().uuidString)"
    }

    @Test func anotherStoreOnTheSameDirectoryReadsTheSameAddressAndNoTemporaryFileIsLeft() throws {
        let directory = temporaryDirectory()
        let first = try AddressStore(directory: directory).loadOrCreate()
        // A restart: a new store, nothing shared in memory.
        #expect(try AddressStore(directory: directory).loadOrCreate() == first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["random-static-address"])
    }

    @Test func aTemporaryFileLeftByACrashIsNeitherTheIdentityNorAnObstacle() throws {
        let directory = temporaryDirectory()
        let store = AddressStore(directory: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "C0:11:2".write(toFile: store.path + ".tmp", atomically: false, encoding: .utf8)
        let address = try store.loadOrCreate()
        #expect(address.isValidRandomStatic)
        #expect(try store.loadOrCreate() == address)
        #expect(!FileManager.default.fileExists(atPath: store.path + ".tmp"))
    }

    @Test(arguments: ["", "\n", "C0:11:22:33:44", "C0:11:22:33:44:55:66", "\u{1B}[31mC0:11:22:33:44:55"])
    func aDamagedFileIsAnErrorThatKeepsTheIdentityQuestionOpen(content: String) throws {
        let directory = temporaryDirectory()
        let store = AddressStore(directory: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try content.write(toFile: store.path, atomically: false, encoding: .utf8)
        #expect {
            try store.loadOrCreate()
        } throws: { error in
            guard case let DaemonError.damagedStateFile(path, reason) = error else { return false }
            return path == store.path && reason.contains("put this board's address back") && reason.contains("delete the file")
                && !reason.contains("\u{1B}")
        }
        // The damaged file is left as it was for the user to look at.
        #expect(try String(contentsOfFile: store.path, encoding: .utf8) == content)
    }
}

// swift-tools-version:6.1
import PackageDescription

// Layers depend downwards only, mirroring the Bluetooth Core spec ("A → B": B builds on A):
// BLECore → HCI → HCITransports, VirtualController, L2CAP, GAP, GATTNotify (the notification queues);
// BLECore → ATT → GATTNotify (its framing); BLECore → SecurityToolbox (the Security Manager's crypto: AES-CMAC, e, c1, s1, ah, f4–f6,
// g2, h6, h7, P-256; the only target that links swift-crypto) → GATT (its Database Hash) and SMP;
// HCI, L2CAP (the ATT bearer), ATT and GATT → GATTServer, GATTClient; BLECore → Bonding → SMP, SQLiteBondStore.
// The Peripheral facade joins GAP, L2CAP, GATTServer, GATTNotify and SMP; the Central facade joins GAP,
// L2CAP, GATTServer, GATTClient, SMP and SIGProfiles, and builds on Peripheral to share its controller.
// The daemon and the CLI sit on top, in one multi-call binary (MultiCall).
// SIGProfiles (characteristic value codecs) and Sensors stand beside the stack; SensorBridge and the daemon join them.
let package = Package(
    name: "blesensor",
    platforms: [.macOS(.v15)],
    products: [
        // What an application imports: one module per role (CoreBluetooth is one import).
        .library(name: "BLEPeripheral", targets: ["BLEPeripheral"]),
        .library(name: "BLECentral", targets: ["BLECentral"]),
        .library(name: "BLEHost", targets: ["BLECore", "HCI", "HCITransports", "L2CAP", "GAP"]),
        .library(name: "BLEVirtualController", targets: ["VirtualController"]),
        .library(name: "SIGProfiles", targets: ["SIGProfiles"]),
        .library(name: "Sensors", targets: ["Sensors"]),
        .executable(name: "blesensord", targets: ["blesensord"]),
        .executable(name: "blesensor", targets: ["blesensor"]),
        .executable(name: "heart-rate-peripheral", targets: ["heart-rate-peripheral"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // timerfd for the host's monotonic timer thread (Glibc does not expose it).
        .target(name: "CMonotonicTimer"),
        .target(name: "BLECore", dependencies: ["CMonotonicTimer"]),
        .target(name: "HCI", dependencies: [
            "BLECore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "CBluetoothShim"),
        .target(name: "HCITransports", dependencies: [
            "BLECore", "HCI", "CBluetoothShim",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "VirtualController", dependencies: [
            "BLECore", "HCI",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "L2CAP", dependencies: [
            "BLECore", "HCI",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "GAP", dependencies: [
            "BLECore", "HCI",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "SIGProfiles", dependencies: ["BLECore"]),
        .target(name: "ATT", dependencies: ["BLECore"]),
        // AES-CMAC and AES.permute (the spec's e) live in CryptoExtras, P-256 in Crypto.
        .target(name: "SecurityToolbox", dependencies: [
            "BLECore",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ]),
        // BTHome v2 broadcasts (service data 0xFCD2): the objects, AES-CCM built on CryptoExtras' AES
        // block (swift-crypto has no CCM) and the encryption counter kept in the state directory.
        .target(name: "BTHome", dependencies: [
            "BLECore",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ]),
        // GATT server database; its Database Hash is an AES-CMAC from SecurityToolbox.
        .target(name: "GATT", dependencies: ["BLECore", "SecurityToolbox"]),
        .target(name: "GATTNotify", dependencies: ["ATT", "BLECore", "HCI"]),
        // LE security state that outlives a connection: bonds, our identity and per-client GATT state behind
        // the BondStore protocol, store-and-forward measurements behind MeasurementStore (with an in-memory
        // store of both for tests).
        .target(name: "Bonding", dependencies: ["BLECore"]),
        // The Security Manager, peripheral role: pairing (legacy and LE Secure Connections), LTK
        // requests from the bonds, private-address resolution, bonds through a BondStore.
        .target(name: "SMP", dependencies: [
            "BLECore", "HCI", "SecurityToolbox", "Bonding",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The persistent BondStore and MeasurementStore: one SQLite file (WAL, synchronous=FULL, mode 0600) through GRDB.
        .target(name: "SQLiteBondStore", dependencies: [
            "BLECore", "Bonding",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .target(name: "GATTServer", dependencies: [
            "BLECore", "HCI", "L2CAP", "ATT", "GATT",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The ATT client role on one link: MTU exchange, discovery, reads, writes, subscriptions, Service Changed.
        .target(name: "GATTClient", dependencies: [
            "BLECore", "HCI", "L2CAP", "ATT", "GATT",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "ProfileCommands", dependencies: [
            "BLECore", "SIGProfiles",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // libgpiod through pkg-config (libgpiod.pc), so PKG_CONFIG_PATH can pick 2.x from a build-local
        // prefix (scripts/build-gpiod2.sh); CLinuxHardware's shim compiles for the API of the header it gets.
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        // Debian's libmosquitto (MQTT 3.1.1/5, TLS, wills) through pkg-config (libmosquitto.pc), for MQTTExporter.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // Hardware sensors: i2c-dev, libgpiod 1.6 or 2.x, w1 and thermal sysfs, independent of the BLE layers.
        .target(name: "CLinuxHardware", dependencies: ["CGPIOD"], linkerSettings: [.linkedLibrary("i2c")]),
        .target(name: "Sensors", dependencies: [
            "BLECore", "CLinuxHardware",
            .product(name: "Logging", package: "swift-log"),
        ], exclude: ["README.md"]),
        // `sensor read` checks its driver settings with the configuration's own rules (same names and messages).
        .target(name: "SensorCommands", dependencies: [
            "Sensors", "BridgeConfiguration",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The CoreBluetooth-shaped peripheral facade over GAP, L2CAP, the GATT server and the notification engine.
        // The host below both roles (Bumble's Device): HCI host, L2CAP, the Security Manager, ATT bearers.
        .target(name: "Host", dependencies: [
            "BLECore", "HCI", "L2CAP", "SMP", "Bonding",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "Peripheral", dependencies: [
            "BLECore", "HCI", "GAP", "L2CAP", "ATT", "GATT", "GATTServer", "GATTNotify", "SMP", "Bonding", "Host",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The CoreBluetooth-shaped central facade: scanning, connecting, a GATT client and pairing per
        // link, over the same host layers; SIGProfiles names and decodes values for its users. It may
        // run on a PeripheralManager's controller (scanning while advertising), hence Peripheral.
        .target(name: "Central", dependencies: [
            "BLECore", "HCI", "GAP", "L2CAP", "ATT", "GATT", "GATTServer", "GATTClient", "SMP", "Bonding", "SIGProfiles", "Host",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The application-facing umbrellas (re-exports only), one per role.
        .target(name: "BLEPeripheral", dependencies: ["ATT", "BLECore", "GAP", "GATT", "HCI", "HCITransports", "Host", "Peripheral", "SMP"]),
        .target(name: "BLECentral", dependencies: [
            "ATT", "BLECore", "Central", "GAP", "GATT", "GATTClient", "HCI", "HCITransports", "Host", "SIGProfiles", "SMP",
        ]),
        // The daemon's configuration file (YAML, with the line of every value) and board profiles.
        .target(name: "BridgeConfiguration", dependencies: [
            "BLECore", "HCITransports", "Sensors",
            .product(name: "Yams", package: "Yams"),
        ]),
        // The daemon's Unix-socket control protocol (versioned JSON lines): server, client, messages.
        .target(name: "ControlSocket"),
        // Running under systemd: sd_notify and the watchdog without libsystemd, journal-friendly logging.
        .target(name: "ServiceManager", dependencies: [
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The sensor bridge: polls the configured sensors and serves them as SIG services through the
        // public peripheral API.
        .target(name: "SensorBridge", dependencies: [
            "BLECore", "ATT", "GATT", "GATTNotify", "Peripheral", "SIGProfiles", "Sensors", "BridgeConfiguration", "ControlSocket",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The MQTT publisher with Home Assistant discovery: a libmosquitto client on a thread of its own.
        .target(name: "MQTTExporter", dependencies: [
            "BLECore", "BridgeConfiguration", "CMosquitto", "ControlSocket", "SensorBridge", "Sensors",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // `blesensor doctor`: checks an installation (kernel interfaces, accounts, configuration, daemon,
        // sensors) through an injectable root and probes; the CLI command is a thin shell over it.
        // Short-lived helpers (systemctl, a pairing confirmation command) with a time limit.
        .target(name: "ChildProcesses", dependencies: ["BLECore"]),
        .target(name: "Doctor", dependencies: [
            "BLECore", "ChildProcesses", "HCITransports", "BridgeConfiguration", "ControlSocket", "Sensors", "SensorBridge",
        ]),
        // Prometheus `/metrics` (text format through swift-prometheus, or OpenMetrics) on a small
        // HTTP responder thread of its own: no web framework.
        .target(name: "MetricsExporter", dependencies: [
            "BLECore", "BridgeConfiguration", "ControlSocket", "SensorBridge",
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "BLESensorDaemon", dependencies: [
            "BLECore", "HCI", "GAP", "L2CAP", "ATT", "GATT", "GATTNotify", "SIGProfiles", "HCITransports", "VirtualController",
            "Peripheral", "Central", "GATTClient", "BridgeConfiguration", "ControlSocket", "SensorBridge", "Sensors", "ServiceManager", "SMP", "Bonding", "SQLiteBondStore",
            "ChildProcesses", "MetricsExporter", "MQTTExporter", "BTHome",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The daemon's command line (options, help, validation, run), a library so that both the
        // `blesensord` executable and the multi-call `blesensor` can run it.
        .target(name: "DaemonCommand", dependencies: [
            "BLECore", "BLESensorDaemon", "BridgeConfiguration", "ServiceManager",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // argv[0] → daemon or CLI, for the multi-call `blesensor` (installed with /usr/bin/blesensord
        // a symbolic link to /usr/bin/blesensor).
        .target(name: "MultiCall"),
        // The daemon alone, for development and tests; a package needs only `blesensor` and a `blesensord` link.
        .executableTarget(name: "blesensord", dependencies: [
            "DaemonCommand",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "heart-rate-peripheral", dependencies: [
            "BLEPeripheral", "VirtualController",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "blesensor", dependencies: [
            "BLECore", "GAP", "HCI", "HCITransports", "GATTClient", "Central", "SMP", "Bonding", "SQLiteBondStore",
            "ProfileCommands", "SensorCommands", "BridgeConfiguration", "ControlSocket", "ServiceManager", "Doctor",
            "DaemonCommand", "MultiCall",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Release-build benchmark of the notification hot path; MallocCounter counts heap allocations
        // by defining malloc & co. in this executable only.
        .target(name: "MallocCounter", path: "Benchmarks/MallocCounter"),
        .executableTarget(name: "notify-bench", dependencies: ["BLECore", "HCI", "GATTNotify", "MallocCounter"], path: "Benchmarks/notify-bench"),
        // Whole-process CPU per tick of a 2000 Hz timer: Task.sleep, Dispatch source, SystemClock.
        .executableTarget(name: "timer-bench", dependencies: ["BLECore"], path: "Benchmarks/timer-bench"),
        .executableTarget(name: "peripheral-bench", dependencies: ["BLECore", "HCI", "GATT", "Peripheral", "MallocCounter"], path: "Benchmarks/peripheral-bench"),
        // Barriers shared by the test targets (a recorder that tests await instead of sleeping).
        .target(name: "TestSupport", dependencies: ["BLECore"], path: "Tests/TestSupport"),
        .testTarget(name: "BLECoreTests", dependencies: ["BLECore"]),
        .testTarget(name: "HCITests", dependencies: ["BLECore", "HCI", "TestSupport"]),
        .testTarget(name: "HCIHostTests", dependencies: ["BLECore", "HCI", "TestSupport"]),
        .testTarget(name: "HCITransportsTests", dependencies: [
            "BLECore", "HCI", "HCITransports", "CBluetoothShim", "TestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "VirtualControllerTests", dependencies: ["BLECore", "HCI", "VirtualController", "TestSupport"]),
        .testTarget(name: "L2CAPTests", dependencies: ["BLECore", "HCI", "L2CAP", "TestSupport"]),
        .testTarget(name: "GAPTests", dependencies: ["BLECore", "HCI", "GAP", "L2CAP", "VirtualController", "TestSupport"]),
        .testTarget(name: "BLESensorDaemonTests", dependencies: [
            "BLECore", "HCI", "GAP", "ATT", "GATT", "SIGProfiles", "Peripheral", "VirtualController", "BLESensorDaemon", "TestSupport",
            "BridgeConfiguration", "Bonding", "SMP", "ControlSocket", "Central", "GATTClient", "HCITransports", "SQLiteBondStore",
            "BTHome", "SensorBridge", "Sensors",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ATTTests", dependencies: ["BLECore", "ATT", "TestSupport"]),
        .testTarget(name: "GATTNotifyTests", dependencies: ["BLECore", "GATTNotify", "HCI"]),
        .testTarget(name: "SIGProfilesTests", dependencies: ["BLECore", "SIGProfiles", "ProfileCommands", "TestSupport"]),
        .testTarget(name: "GATTTests", dependencies: ["BLECore", "GATT"]),
        .testTarget(name: "SecurityToolboxTests", dependencies: ["BLECore", "SecurityToolbox"]),
        .testTarget(name: "BTHomeTests", dependencies: ["BLECore", "BTHome", "TestSupport"]),
        .testTarget(name: "SMPTests", dependencies: ["BLECore", "HCI", "SecurityToolbox", "Bonding", "SMP", "TestSupport"]),
        .testTarget(name: "GATTServerTests", dependencies: ["BLECore", "HCI", "L2CAP", "ATT", "GATT", "GATTServer", "TestSupport"]),
        .testTarget(name: "GATTClientTests", dependencies: ["BLECore", "HCI", "L2CAP", "ATT", "GATT", "GATTServer", "GATTClient", "TestSupport"]),
        .testTarget(name: "CentralTests", dependencies: [
            "BLECore", "HCI", "GAP", "GATT", "GATTClient", "SMP", "Bonding", "Peripheral", "Central", "Host", "VirtualController", "TestSupport",
        ]),
        // A published peripheral on a virtual radio with scripted centrals (raw ATT clients) for any test target.
        .target(name: "PeripheralTestSupport", dependencies: [
            "ATT", "BLECore", "GATT", "GATTNotify", "HCI", "L2CAP", "Peripheral", "TestSupport", "VirtualController",
        ], path: "Tests/PeripheralTestSupport"),
        .testTarget(name: "PeripheralTests", dependencies: [
            "BLECore", "HCI", "L2CAP", "GAP", "ATT", "GATT", "GATTNotify", "Peripheral", "VirtualController", "TestSupport", "PeripheralTestSupport",
            "Bonding", "SMP", "SecurityToolbox",
        ]),
        .testTarget(name: "SensorBridgeTests", dependencies: [
            "BLECore", "ATT", "GATT", "GATTNotify", "Peripheral", "SIGProfiles", "Sensors", "BridgeConfiguration", "ControlSocket",
            "SensorBridge", "TestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // What the libgpiod 2.x build of tier 2 compiles besides the products (scripts/build-gpiod2.sh).
        .testTarget(name: "GPIOTests", dependencies: ["Sensors", "SensorCommands"]),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "SensorCommands", "BLECore", "BridgeConfiguration"]),
        .testTarget(name: "ServiceManagerTests", dependencies: [
            "ServiceManager",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "BridgeConfigurationTests", dependencies: ["BridgeConfiguration", "BLECore", "Sensors", "TestSupport"]),
        .testTarget(name: "ControlSocketTests", dependencies: ["ControlSocket", "TestSupport"]),
        .testTarget(name: "MetricsExporterTests", dependencies: [
            "MetricsExporter", "BLECore", "BridgeConfiguration", "ControlSocket", "SensorBridge", "Sensors", "TestSupport",
        ]),
        .testTarget(name: "BondingTests", dependencies: ["BLECore", "Bonding"]),
        .testTarget(name: "MQTTExporterTests", dependencies: [
            "MQTTExporter", "BLECore", "BridgeConfiguration", "ControlSocket", "Sensors",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "DoctorTests", dependencies: [
            "Doctor", "BLECore", "BridgeConfiguration", "ChildProcesses", "ControlSocket", "Sensors", "SensorBridge", "TestSupport",
        ]),
        // Coverage-guided fuzzing: the targets (a library, so the tests replay the corpus), and
        // libFuzzer's driver, built by scripts/fuzz.sh with -sanitize=fuzzer,address -DFUZZING.
        .target(name: "FuzzTargets", dependencies: [
            "ATT", "BLECore", "Bonding", "BridgeConfiguration", "ControlSocket", "GAP", "GATT", "GATTClient", "GATTServer", "HCI",
            "HCITransports", "L2CAP", "MetricsExporter", "Sensors", "SMP",
        ]),
        .executableTarget(name: "blesensor-fuzz", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/Driver"),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["BLECore", "FuzzTargets", "TestSupport"]),
        // Writes bonds until it is killed, for the crash-durability test in SQLiteBondStoreTests.
        .executableTarget(name: "bond-store-crash-writer", dependencies: ["BLECore", "Bonding", "SQLiteBondStore"],
                          path: "Tests/BondStoreCrashWriter"),
        // The multi-call rule, and the built `blesensor` run through a `blesensord` link against the built `blesensord`.
        .testTarget(name: "MultiCallTests", dependencies: ["MultiCall", "TestSupport"]),
        .testTarget(name: "SQLiteBondStoreTests", dependencies: [
            "BLECore", "Bonding", "SQLiteBondStore", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
    ]
)

// BLESENSOR_ONLY_TEST_TARGETS=A,B (scripts/build-gpiod2.sh): the programs and only the test targets
// named, so that a second build against another libgpiod compiles no test it does not run.
if let only = Context.environment["BLESENSOR_ONLY_TEST_TARGETS"] {
    let keptTests = Set(only.split(separator: ",").map(String.init))
    let programs: Set<String> = ["blesensord", "blesensor", "heart-rate-peripheral"]
    let testAndBenchmarkSupport: Set<String> = ["TestSupport", "PeripheralTestSupport", "FuzzTargets", "MallocCounter"]
    package.targets.removeAll { target in
        switch target.type {
        case .test: !keptTests.contains(target.name)
        case .executable: !programs.contains(target.name)
        default: testAndBenchmarkSupport.contains(target.name)
        }
    }
}

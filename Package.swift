// swift-tools-version:6.1
import PackageDescription

// Layers depend downwards only, mirroring the Bluetooth Core spec:
// BLECore → HCI → HCITransports / VirtualController → GAP → daemon and CLI.
let package = Package(
    name: "blesensor",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BLEHost", targets: ["BLECore", "HCI"]),
        .library(name: "Sensors", targets: ["Sensors"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .target(name: "BLECore"),
        .target(name: "HCI", dependencies: [
            "BLECore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "BLECoreTests", dependencies: ["BLECore"]),
        // Hardware sensors: i2c-dev, libgpiod 1.6, w1 and thermal sysfs, independent of the BLE layers.
        .target(
            name: "CLinuxHardware",
            linkerSettings: [.linkedLibrary("gpiod"), .linkedLibrary("i2c")]
        ),
        .target(
            name: "Sensors",
            dependencies: [
                "BLECore",
                "CLinuxHardware",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        .target(name: "SensorCommands", dependencies: [
            "Sensors",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "SensorCommands", "BLECore"]),
    ]
)

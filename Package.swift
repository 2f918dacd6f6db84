// swift-tools-version:6.1
import PackageDescription

// Layers depend downwards only, mirroring the Bluetooth Core spec:
// BLECore → HCI → HCITransports / VirtualController → GAP → daemon and CLI.
// SIGProfiles (characteristic value codecs) and Sensors stand beside the stack; the daemon joins them.
let package = Package(
    name: "blesensor",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BLEHost", targets: ["BLECore", "HCI", "GAP", "HCITransports"]),
        .library(name: "SIGProfiles", targets: ["SIGProfiles"]),
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
        .target(name: "GAP", dependencies: [
            "HCI",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "SIGProfiles", dependencies: ["BLECore"]),
        .target(name: "ProfileCommands", dependencies: [
            "SIGProfiles",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "CBluetoothShim"),
        .target(name: "HCITransports", dependencies: [
            "BLECore",
            "HCI",
            "CBluetoothShim",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "BLECoreTests", dependencies: ["BLECore"]),
        .testTarget(name: "HCIHostTests", dependencies: ["HCI"]),
        .testTarget(name: "SIGProfilesTests", dependencies: ["SIGProfiles", "ProfileCommands"]),
        .testTarget(name: "HCITransportsTests", dependencies: ["HCITransports"]),
        .testTarget(name: "HCITests", dependencies: ["HCI"]),
    ]
)

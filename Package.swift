// swift-tools-version:6.1
import PackageDescription

// Layers depend downwards only, mirroring the Bluetooth Core spec:
// BLECore → HCI → HCITransports / VirtualController → GAP → daemon and CLI.
let package = Package(
    name: "blesensor",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BLEHost", targets: ["BLECore", "HCI"]),
        .library(name: "BLEVirtualController", targets: ["VirtualController"]),
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
        .target(name: "VirtualController", dependencies: ["HCI", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "VirtualControllerTests", dependencies: ["VirtualController"]),
    ]
)

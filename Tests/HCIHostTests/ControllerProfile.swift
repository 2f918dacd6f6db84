import Foundation
@testable import HCI

/// A controller we cannot buy, as `Tests/ControllerProfiles/profiles.json` describes it (the interop
/// harness reads the same file).
struct ControllerProfile: Decodable, Sendable, CustomStringConvertible {
    struct Strictness: Decodable, Sendable {
        var leEventMaskLimit: String?
        var refuse: [String: String]?
        var leHostSupportRequired: Bool?
        var advertisingWhileConnected: Bool?
        var dropReplyOnce: String?
    }

    var name: String
    var chip: String
    var hciVersion: UInt8
    var hciRevision: String
    var lmpVersion: UInt8
    var manufacturer: UInt16
    var lmpSubversion: String
    var lmpFeatures: String
    var leFeatures: String
    var leStates: String
    var leAclBuffers: [Int]
    var aclBuffers: [Int]
    var commandsNotListed: [String]
    var strict: Strictness

    var description: String { name }

    var version: HCILocalVersionInformation {
        HCILocalVersionInformation(hciVersion: hciVersion, hciRevision: UInt16(Self.hex(hciRevision)), lmpVersion: lmpVersion,
                                   manufacturer: manufacturer, lmpSubversion: UInt16(Self.hex(lmpSubversion)))
    }
    var lmpFeatureBits: UInt64 { Self.hex(lmpFeatures) }
    var leFeatureBits: UInt64 { Self.hex(leFeatures) }
    var states: LESupportedStates { LESupportedStates(rawValue: Self.hex(leStates)) }
    var leEventMaskLimit: UInt64? { strict.leEventMaskLimit.map(Self.hex) }
    var refusals: [HCIOpcode: HCIStatus] {
        Dictionary(uniqueKeysWithValues: (strict.refuse ?? [:]).map {
            (HCIOpcode(rawValue: UInt16(Self.hex($0.key))), HCIStatus(rawValue: UInt8(Self.hex($0.value))))
        })
    }
    var dropReplyOnce: HCIOpcode? { strict.dropReplyOnce.map { HCIOpcode(rawValue: UInt16(Self.hex($0))) } }
    var supportedCommands: HCISupportedCommands {
        let missing = Set(commandsNotListed.map { HCIOpcode(rawValue: UInt16(Self.hex($0))) })
        return HCISupportedCommands(supporting: HCISupportedCommands.positions.keys.filter { !missing.contains($0) })
    }

    private static func hex(_ text: String) -> UInt64 {
        UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) ?? 0
    }

    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "no controller profile named \(name) in profiles.json" }
    }

    /// Every profile in the file, in its order.
    static func all() throws -> [ControllerProfile] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("ControllerProfiles/profiles.json")
        struct File: Decodable { var profiles: [ControllerProfile] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(File.self, from: Data(contentsOf: file)).profiles
    }

    static func named(_ name: String) throws -> ControllerProfile {
        guard let profile = try all().first(where: { $0.name == name }) else { throw Missing(name: name) }
        return profile
    }
}

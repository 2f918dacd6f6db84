import BLECore
import Testing
import TestSupport
@testable import HCI

/// Bring-up against the controllers of `Tests/ControllerProfiles/profiles.json`: each comes up, with
/// what it cannot do turned off and reported, never a failed start.
@Suite struct ControllerProfileBringUpTests {
    static let profileNames = ["ideal", "cyw43455", "bcm4345c5", "bcm43430a1", "csr8510", "intel-ax200"]

    @Test func theListCoversEveryProfileInTheFile() throws {
        #expect(try ControllerProfile.all().map(\.name) == Self.profileNames)
    }

    @Test(arguments: profileNames)
    func everyProfileComesUp(name: String) async throws {
        let profile = try ControllerProfile.named(name)
        let controller = ScriptedController(profile: profile)
        // Lost replies have their own test; here every command is answered.
        controller.state.withLock { $0.silentOnce = [] }
        let host = HCIHost(transport: controller, configuration: virtualTime())
        let info = try await host.start()
        let commands = controller.commands
        let (leSize, leCount) = (profile.leAclBuffers[0], profile.leAclBuffers[1])
        let expected = leSize > 0 && leCount > 0 ? (leSize, leCount) : (profile.aclBuffers[0], profile.aclBuffers[1])
        #expect(info.aclBufferSize == expected.0 && info.aclBufferCount == expected.1)
        #expect(info.version == profile.version)
        #expect(info.leStates == profile.states)
        // Dual-mode controllers get LE Supported (Host) back before the first LE command.
        let dualMode = profile.lmpFeatureBits & HCIFeaturesReturn.lmpBREDRNotSupported == 0
        #expect(commands.contains(.writeLEHostSupport) == dualMode)
        if dualMode {
            let firstLE = try #require(commands.firstIndex { $0.ogf == 0x08 })
            #expect(try #require(commands.firstIndex(of: .writeLEHostSupport)) < firstLE)
        }
        // Page 2 only from Core 5.3 on; v2 buffers only from ISO-capable controllers.
        #expect(!commands.contains(.setEventMaskPage2))
        #expect(commands.contains(.leReadBufferSizeV2) == (profile.leFeatureBits & HCILEReadLocalSupportedFeatures.isochronousChannels != 0))
        // The mask asks only for events the features can produce, so no profile refuses it.
        #expect(commands.filter { $0 == .leSetEventMask }.count == 1)
        #expect(info.leEventMask & ~(profile.leEventMaskLimit ?? .max) == 0)
        #expect(info.limitations.contains(.cannotAdvertiseWhileConnected) == !profile.states.allowsConnectableAdvertisingWhilePeripheral)
        #expect(info.canAdvertiseWhileConnected == (profile.strict.advertisingWhileConnected ?? true))
        #expect(host.acl.availableCredits == expected.1)
        await host.shutdown()
    }

    @Test func aRefusedLEEventMaskStepsDownToOneTheControllerTakes() async throws {
        // A 4.1 chip that claims data length extension but refuses its event bit.
        var profile = try ControllerProfile.named("bcm43430a1")
        profile.leFeatures = "0x2f"
        profile.strict.dropReplyOnce = nil
        let controller = ScriptedController(profile: profile)
        let host = HCIHost(transport: controller, configuration: virtualTime())
        let info = try await host.start()
        #expect(controller.commands.filter { $0 == .leSetEventMask }.count == 2)
        #expect(info.leEventMask == 0x3F)
        #expect(info.limitations == [.leEventMaskReduced(wanted: 0x7F, accepted: 0x3F)])
        #expect(info.limitations[0].description.contains("no LE Data Length Change events"))
        await host.shutdown()
    }

    @Test func aCoreFourZeroControllerGetsTheLastRung() async throws {
        var profile = try ControllerProfile.named("csr8510")
        profile.leFeatures = "0x7f"
        let controller = ScriptedController(profile: profile)
        let host = HCIHost(transport: controller, configuration: virtualTime())
        let info = try await host.start()
        #expect(controller.commands.filter { $0 == .leSetEventMask }.count == 3)
        #expect(info.leEventMask == 0x1F)
        #expect(info.limitations.first == .leEventMaskReduced(wanted: 0x27F, accepted: 0x1F))
        await host.shutdown()
    }

    @Test func aControllerThatRefusesEveryLEEventMaskCannotBeUsed() async throws {
        var profile = try ControllerProfile.named("csr8510")
        profile.leFeatures = "0x21"   // mask 0x5F, then 0x1F
        profile.strict.leEventMaskLimit = "0x0"
        let controller = ScriptedController(profile: profile)
        let host = HCIHost(transport: controller, configuration: virtualTime())
        await #expect(throws: HCIHostError.commandFailed(.leSetEventMask, .invalidParameters)) { try await host.start() }
        #expect(controller.commands.filter { $0 == .leSetEventMask }.count == 2)
        await host.shutdown()
    }

    @Test func refusedOrMalformedOptionalCommandsTurnTheirFeatureOff() async throws {
        var profile = try ControllerProfile.named("ideal")
        profile.hciVersion = 12
        profile.leFeatures = "0x1000007f"   // ISO capable: LE Read Buffer Size v2 is asked for
        profile.strict.refuse = ["0x0c63": "0x01", "0x2024": "0x01"]
        let controller = ScriptedController(profile: profile)
        controller.state.withLock { $0.malformed = [.leReadSupportedStates, .leReadBufferSizeV2, .leReadAdvertisingChannelTxPower] }
        let host = HCIHost(transport: controller, configuration: virtualTime())
        let info = try await host.start()
        #expect(info.limitations.contains { if case .malformedAnswer(.leReadAdvertisingChannelTxPower, _) = $0 { true } else { false } })
        #expect(info.advertisingTxPower == nil)
        #expect(info.limitations.contains { if case .commandRefused(.setEventMaskPage2, .unknownCommand, _) = $0 { true } else { false } })
        #expect(info.limitations.contains { if case .commandRefused(.leWriteSuggestedDefaultDataLength, .unknownCommand, _) = $0 { true } else { false } })
        #expect(info.limitations.contains { if case .malformedAnswer(.leReadSupportedStates, _) = $0 { true } else { false } })
        #expect(info.limitations.contains { if case .malformedAnswer(.leReadBufferSizeV2, _) = $0 { true } else { false } })
        // v2 in the v1 shape: the v1 answer gives the buffers.
        #expect(controller.commands.contains(.leReadBufferSize))
        #expect(info.aclBufferSize == 27 && info.aclBufferCount == 4)
        #expect(info.leStates == nil && info.canAdvertiseWhileConnected)
        await host.shutdown()
    }

    @Test func pageTwoGoesOnlyToCoreFiveThreeControllers() async throws {
        var profile = try ControllerProfile.named("ideal")
        profile.hciVersion = 12
        let controller = ScriptedController(profile: profile)
        let host = HCIHost(transport: controller, configuration: virtualTime())
        let info = try await host.start()
        #expect(controller.commands.contains(.setEventMaskPage2))
        #expect(info.limitations.isEmpty)
        await host.shutdown()
    }

    @Test func aControllerThatNeedsLEHostSupportComesUp() async throws {
        var profile = try ControllerProfile.named("cyw43455")
        profile.strict.leHostSupportRequired = true
        let controller = ScriptedController(profile: profile)
        let host = HCIHost(transport: controller, configuration: virtualTime())
        let info = try await host.start()
        #expect(info.limitations.isEmpty)
        #expect(controller.commands.contains(.writeLEHostSupport))
        await host.shutdown()
    }

    @Test func aBroadcomChipWithoutItsPatchIsFlagged() async throws {
        // btbcm prints the patch build as HCI revision & 0x0FFF: 0000 is the ROM firmware.
        var profile = try ControllerProfile.named("cyw43455")
        profile.hciRevision = "0x1000"
        let host = HCIHost(transport: ScriptedController(profile: profile), configuration: virtualTime())
        let info = try await host.start()
        #expect(info.limitations == [.romFirmware(manufacturer: 15, subversion: 0x6119)])
        #expect(info.limitations[0].needsAction)
        #expect(info.limitations[0].description.contains("bluez-firmware"))
        await host.shutdown()
    }

    @Test func aLostReplyDuringBringUpResetsAndTriesAgain() async throws {
        let controller = ScriptedController(profile: try ControllerProfile.named("bcm43430a1"))
        let clock = ManualClock()
        var configuration = HCIHost.Configuration()
        configuration.clock = clock
        let host = HCIHost(transport: controller, configuration: configuration)
        let starting = Task { try await host.start() }
        await controller.waitForCommand(.leReadSupportedStates)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: configuration.commandTimeout)
        let info = try await starting.value
        #expect(controller.commands.filter { $0 == .reset }.count == 2)
        #expect(controller.commands.filter { $0 == .leReadSupportedStates }.count == 2)
        #expect(info.leStates != nil)
        await host.shutdown()
    }
}

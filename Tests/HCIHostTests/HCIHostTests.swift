import BLECore
import Testing
@testable import HCI

/// Waits for the first host event matching `predicate`, failing after `timeout`.
func firstEvent(_ host: HCIHost, timeout: Duration = .seconds(5), where predicate: @escaping @Sendable (HCIHostEvent) -> Bool) async -> HCIHostEvent? {
    await withTaskGroup(of: HCIHostEvent?.self) { group in
        group.addTask {
            for await event in host.events where predicate(event) { return event }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

@Suite struct HCIHostBringUpTests {
    @Test func bringUpFollowsTheSpecOrderAndLearnsBuffers() async throws {
        let controller = ScriptedController()
        let host = HCIHost(transport: controller)
        let info = try await host.start()
        #expect(info.aclBufferSize == 27)
        #expect(info.aclBufferCount == 4)
        #expect(info.publicAddress.description == "00:1B:DC:01:02:03")
        #expect(info.suggestedDataLength == .maximum)
        let commands = controller.commands
        #expect(commands.first == .reset)
        #expect(commands.contains(.setEventMask))
        #expect(commands.contains(.leSetEventMask))
        #expect(commands.contains(.leReadBufferSizeV2))
        #expect(!commands.contains(.readBufferSize))
        #expect(commands.contains(.leWriteSuggestedDefaultDataLength))
        // Masks go out before anything that could produce the events they enable.
        let maskIndex = try #require(commands.firstIndex(of: .setEventMask))
        #expect(maskIndex < commands.firstIndex(of: .readBDADDR)!)
        #expect(host.acl.availableCredits == 4)
        await host.shutdown()
    }

    @Test func zeroLEBuffersFallBackToReadBufferSize() async throws {
        let controller = ScriptedController()
        controller.state.withLock { $0.leBuffersZero = true; $0.supportsV2 = false }
        let host = HCIHost(transport: controller)
        let info = try await host.start()
        #expect(controller.commands.contains(.leReadBufferSize))
        #expect(controller.commands.contains(.readBufferSize))
        #expect(info.aclBufferSize == 1021)
        #expect(info.aclBufferCount == 6)
        await host.shutdown()
    }

    @Test func leMetaBitIsSetInTheEventMask() {
        #expect(HCISetEventMask.leHostDefault.mask & (1 << 61) != 0)
        #expect(HCISetEventMask.leHostDefault.packet.h4Bytes.count == 4 + 8)
    }
}

@Suite struct HCIHostCommandFlowTests {
    @Test func neverMoreCommandsOutstandingThanTheControllerAllows() async throws {
        let controller = ScriptedController()
        let host = HCIHost(transport: controller)
        _ = try await host.start()
        controller.state.withLock { $0.maxOutstandingCommands = 0; $0.holdAnswers = true }
        async let first = host.send(HCILESetAdvertisingEnable(enable: false))
        async let second = host.send(HCILESetScanEnable(enable: false))
        async let third = host.send(HCIReadBDADDR())
        try await Task.sleep(for: .milliseconds(100))
        // One credit: only the first command may be on its way until it is answered.
        #expect(controller.state.withLock { $0.heldAnswers.count } == 1)
        controller.releaseAnswers()
        try await Task.sleep(for: .milliseconds(50))
        controller.releaseAnswers()
        try await Task.sleep(for: .milliseconds(50))
        controller.releaseAnswers()
        _ = try await (first, second, third)
        #expect(controller.state.withLock { $0.maxOutstandingCommands } == 1)
        await host.shutdown()
    }

    @Test func failedStatusIsATypedError() async throws {
        let controller = ScriptedController()
        let host = HCIHost(transport: controller)
        _ = try await host.start()
        let rejection = HCIEvent.commandComplete(.init(opcode: .leSetAdvertisingEnable, returnParameters: [0x0C])).packet
        _ = controller.state.withLock { $0.silentOnce.insert(.leSetAdvertisingEnable) }
        let result = Task { try await host.send(HCILESetAdvertisingEnable(enable: true)) }
        try await Task.sleep(for: .milliseconds(50))
        controller.deliver(rejection)
        await #expect(throws: HCIHostError.commandFailed(.leSetAdvertisingEnable, .commandDisallowed)) { try await result.value }
        await host.shutdown()
    }

    @Test func timeoutResetsAndReinitialisesTheController() async throws {
        let controller = ScriptedController()
        var configuration = HCIHost.Configuration()
        configuration.commandTimeout = .milliseconds(200)
        let host = HCIHost(transport: controller, configuration: configuration)
        _ = try await host.start()
        _ = controller.state.withLock { $0.silentOnce.insert(.leSetAdvertisingEnable) }
        async let recovered = firstEvent(host) { if case .controllerRecovered = $0 { return true } else { return false } }
        await #expect(throws: HCIHostError.commandTimeout(.leSetAdvertisingEnable, milliseconds: 200)) {
            try await host.send(HCILESetAdvertisingEnable(enable: true))
        }
        let event = await recovered
        guard case .controllerRecovered = event else {
            Issue.record("no recovery after a command timeout: \(String(describing: event))")
            return
        }
        #expect(controller.commands.filter { $0 == .reset }.count == 2)
        // Usable again afterwards.
        _ = try await host.send(HCILESetAdvertisingEnable(enable: true))
        await host.shutdown()
    }

    @Test func hardwareErrorTriggersRecovery() async throws {
        let controller = ScriptedController()
        let host = HCIHost(transport: controller)
        _ = try await host.start()
        async let resetting = firstEvent(host) { if case .controllerResetting = $0 { return true } else { return false } }
        try await Task.sleep(for: .milliseconds(20))
        controller.deliver(HCIEvent.hardwareError(code: 0x42).packet)
        guard case let .controllerResetting(reason) = await resetting else {
            Issue.record("hardware error did not reset the controller")
            return
        }
        #expect(reason == .hardwareError(code: 0x42))
        await host.shutdown()
    }

    @Test func linkLossFailsPendingCommandsInsteadOfHanging() async throws {
        let controller = ScriptedController()
        let host = HCIHost(transport: controller)
        _ = try await host.start()
        _ = controller.state.withLock { $0.silentOnce.insert(.readBDADDR) }
        let pending = Task { try await host.send(HCIReadBDADDR(), timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        controller.dropLink()
        await #expect(throws: HCIHostError.transport(.disconnected("test dropped the link"))) { try await pending.value }
    }

    @Test func malformedEventsAreDroppedNotTrusted() async throws {
        let controller = ScriptedController()
        let host = HCIHost(transport: controller)
        _ = try await host.start()
        controller.deliver(HCIPacket(type: .event, body: [0x0E, 0x05, 0x01]))   // length lies
        controller.deliver(HCIPacket(type: .event, body: [0x3E, 0x01, 0x0A]))   // truncated LE meta
        controller.deliver(HCIPacket(type: .acl, body: [0x01]))
        controller.deliver(HCIPacket(type: .sco, body: [0x01, 0x00, 0x00]))
        // Still answering commands normally.
        _ = try await host.send(HCIReadBDADDR())
        await host.shutdown()
    }
}

import BLECore
import Synchronization
import Testing
import TestSupport
@testable import HCI

/// Waits for the first host event matching `predicate`; nil if the stream ends or the safety
/// limit passes (a failing test must not hang the run).
func firstEvent(_ host: HCIHost, limit: Duration = .seconds(10), where predicate: @escaping @Sendable (HCIHostEvent) -> Bool) async -> HCIHostEvent? {
    await withTaskGroup(of: HCIHostEvent?.self) { group in
        group.addTask {
            for await event in host.events where predicate(event) { return event }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: limit.scaledForTests)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

/// Polls an actor-held condition, yielding in between (a barrier on state, never a fixed sleep).
func until(_ condition: @Sendable () async -> Bool) async {
    while !(await condition()) { await Task.yield() }
}

/// Host timeouts on a clock only the test moves: a busy machine cannot make them fire.
func virtualTime() -> HCIHost.Configuration {
    var configuration = HCIHost.Configuration()
    configuration.clock = ManualClock()
    return configuration
}

func startedHost(_ controller: ScriptedController, clock: ManualClock = ManualClock(),
                 configure: (inout HCIHost.Configuration) -> Void = { _ in }) async throws -> HCIHost {
    var configuration = HCIHost.Configuration()
    configuration.clock = clock
    configure(&configuration)
    let host = HCIHost(transport: controller, configuration: configuration)
    // The tests read `host.events` for what happened since the host was made.
    _ = host.events
    _ = try await host.start()
    return host
}

@Suite struct HCIHostBringUpTests {
    @Test func bringUpFollowsTheSpecOrderAndLearnsBuffers() async throws {
        let controller = ScriptedController()
        let host = HCIHost(transport: controller, configuration: virtualTime())
        let info = try await host.start()
        #expect(info.aclBufferSize == 27)
        #expect(info.aclBufferCount == 4)
        #expect(info.publicAddress.description == "00:1B:DC:01:02:03")
        #expect(info.suggestedDataLength == .maximum)
        #expect(info.advertisingTxPower == ScriptedController.advertisingTxPower)
        let commands = controller.commands
        #expect(commands.first == .reset)
        #expect(commands.contains(.setEventMask))
        #expect(commands.contains(.leSetEventMask))
        // v2 only adds ISO buffers: not asked of a controller without isochronous channels.
        #expect(commands.contains(.leReadBufferSize) && !commands.contains(.leReadBufferSizeV2))
        #expect(!commands.contains(.readBufferSize))
        // The LE mask asks only for what the features can produce: here all of it.
        #expect(info.leEventMask == HCILESetEventMask.hostDefault.mask)
        #expect(info.limitations.isEmpty)
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
        let host = HCIHost(transport: controller, configuration: virtualTime())
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
        let host = try await startedHost(controller)
        let before = controller.commands.count
        controller.state.withLock { $0.maxOutstandingCommands = 0; $0.holdAnswers = true }
        async let first = host.send(HCILESetAdvertisingEnable(enable: false))
        async let second = host.send(HCILESetScanEnable(enable: false))
        async let third = host.send(HCIReadBDADDR())
        // All three are with the host; one credit: only one may be on its way until it is answered.
        await until { await host.commandQueueDepth == (2, 1) }
        #expect(controller.commands.count == before + 1)
        for sent in 2...3 {
            controller.releaseAnswers(keepHolding: true)
            await controller.waitForCommand(count: before + sent)
            #expect(controller.state.withLock { $0.heldAnswers.count } == 1)
        }
        controller.releaseAnswers()
        _ = try await (first, second, third)
        #expect(controller.state.withLock { $0.maxOutstandingCommands } == 1)
        await host.shutdown()
    }

    @Test func failedStatusIsATypedError() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        let rejection = HCIEvent.commandComplete(.init(opcode: .leSetAdvertisingEnable, returnParameters: [0x0C])).packet
        _ = controller.state.withLock { $0.silentOnce.insert(.leSetAdvertisingEnable) }
        let result = Task { try await host.send(HCILESetAdvertisingEnable(enable: true)) }
        await controller.waitForCommand(.leSetAdvertisingEnable)
        controller.deliver(rejection)
        await #expect(throws: HCIHostError.commandFailed(.leSetAdvertisingEnable, .commandDisallowed)) { try await result.value }
        await host.shutdown()
    }

    @Test func oneLostReplyTakesItsSlotBackAndKeepsEveryLink() async throws {
        let controller = ScriptedController()
        let clock = ManualClock()
        let host = try await startedHost(controller, clock: clock)
        let log = LinkLog()
        log.attach(to: host.links)
        controller.deliver(Controller.connected(0x40))
        controller.deliver(Controller.connected(0x41, peer: DeviceAddress(BluetoothAddress("C0:00:00:00:00:C2")!, type: .randomDevice)))
        await until { log.links.withLock { $0.count } == 2 }
        _ = controller.state.withLock { $0.silentOnce.insert(.leSetAdvertisingEnable) }
        let sending = Task { try await host.send(HCILESetAdvertisingEnable(enable: true)) }
        await controller.waitForCommand(.leSetAdvertisingEnable)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .milliseconds(1999))
        #expect(controller.commands.filter { $0 == .reset }.count == 1)
        clock.advance(by: .milliseconds(1))
        await #expect(throws: HCIHostError.commandTimeout(.leSetAdvertisingEnable, milliseconds: 2000)) { try await sending.value }
        // The slot is back: the next command goes out and is answered, and no link was dropped.
        _ = try await host.send(HCIReadBDADDR())
        #expect(controller.commands.filter { $0 == .reset }.count == 1)
        #expect(!log.all.contains { $0.hasPrefix("closed") })
        #expect(log.links.withLock { $0.allSatisfy(\.isOpen) })
        // An answer in between means the next lost reply is a first one again.
        _ = controller.state.withLock { $0.silentOnce.insert(.leSetAdvertisingEnable) }
        let again = Task { try await host.send(HCILESetAdvertisingEnable(enable: true)) }
        await controller.waitForCommand(.leSetAdvertisingEnable, count: 2)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(2))
        await #expect(throws: HCIHostError.commandTimeout(.leSetAdvertisingEnable, milliseconds: 2000)) { try await again.value }
        _ = try await host.send(HCIReadBDADDR())
        #expect(controller.commands.filter { $0 == .reset }.count == 1)
        #expect(clock.pendingTimers == 0)
        await host.shutdown()
    }

    @Test func aSecondTimeoutInARowResetsAndReinitialisesInVirtualTime() async throws {
        let controller = ScriptedController()
        let clock = ManualClock()
        let host = try await startedHost(controller, clock: clock)
        async let recovered = firstEvent(host) { if case .controllerRecovered = $0 { return true } else { return false } }
        controller.state.withLock { $0.silentOnce = [.leSetAdvertisingEnable, .leSetScanEnable] }
        let first = Task { try await host.send(HCILESetAdvertisingEnable(enable: true)) }
        await controller.waitForCommand(.leSetAdvertisingEnable)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(2))
        await #expect(throws: HCIHostError.commandTimeout(.leSetAdvertisingEnable, milliseconds: 2000)) { try await first.value }
        let second = Task { try await host.send(HCILESetScanEnable(enable: false)) }
        await controller.waitForCommand(.leSetScanEnable)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(2))
        await #expect(throws: HCIHostError.commandTimeout(.leSetScanEnable, milliseconds: 2000)) { try await second.value }
        let event = await recovered
        guard case .controllerRecovered = event else {
            Issue.record("no recovery after two command timeouts in a row: \(String(describing: event))")
            return
        }
        #expect(controller.commands.filter { $0 == .reset }.count == 2)
        // Usable again afterwards, and answered commands leave no timer behind.
        _ = try await host.send(HCILESetAdvertisingEnable(enable: true))
        #expect(clock.pendingTimers == 0)
        await host.shutdown()
    }

    @Test func anAnswerToACommandSomeoneElseSentGivesNoCredit() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        controller.state.withLock { $0.maxOutstandingCommands = 0; $0.holdAnswers = true }
        async let first = host.send(HCILESetAdvertisingEnable(enable: false))
        async let second = host.send(HCIReadBDADDR())
        await until { await host.commandQueueDepth == (1, 1) }
        // bthelper's vendor command, answered while ours is in flight: its credit count predates
        // ours. Had it opened room, the second command would go out before the first's answer.
        let vendor = HCIOpcode(ogf: 0x3F, ocf: 0x001C)
        controller.deliver(HCIEvent.commandComplete(.init(numHCICommandPackets: 1, opcode: vendor, returnParameters: [0x00])).packet)
        controller.releaseAnswers()
        _ = try await (first, second)
        #expect(controller.state.withLock { $0.maxOutstandingCommands } == 1)
        await host.shutdown()
    }

    @Test func hardwareErrorTriggersRecovery() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        async let resetting = firstEvent(host) { if case .controllerResetting = $0 { return true } else { return false } }
        controller.deliver(HCIEvent.hardwareError(code: 0x42).packet)
        guard case let .controllerResetting(reason) = await resetting else {
            Issue.record("hardware error did not reset the controller")
            return
        }
        #expect(reason == .hardwareError(code: 0x42))
        await host.shutdown()
    }

    @Test func aStalledTransportIsResetAndReportedWhenResetsDoNotHelp() async throws {
        let controller = ScriptedController()
        let clock = ManualClock()
        let host = try await startedHost(controller, clock: clock) { $0.maxRecoveryAttempts = 2 }
        async let failed = firstEvent(host) { if case .controllerFailed = $0 { return true } else { return false } }
        // The transport says nothing is being accepted; from now on the controller answers nothing.
        controller.state.withLock { $0.silentOnce = [.reset] }
        controller.stall()
        await controller.waitForCommand(.reset, count: 2)
        #expect(controller.state.withLock { $0.discardedAll } >= 1)
        await clock.waitForTimers(atLeast: 1)
        controller.state.withLock { $0.silentOnce = [.reset] }
        clock.advance(by: .seconds(5))
        await controller.waitForCommand(.reset, count: 3)
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(5))
        guard case let .controllerFailed(error) = await failed else {
            Issue.record("a stall that resets did not cure was not reported")
            return
        }
        #expect(error == .transport(.stalled("scripted", milliseconds: 2000)))
        #expect(error.description.hasPrefix("controller link stalled"))
        await host.shutdown()
    }

    @Test func linkLossFailsPendingCommandsInsteadOfHanging() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        _ = controller.state.withLock { $0.silentOnce.insert(.readBDADDR) }
        let pending = Task { try await host.send(HCIReadBDADDR(), timeout: .seconds(30)) }
        await controller.waitForCommand(.readBDADDR, count: 2)
        controller.dropLink()
        await #expect(throws: HCIHostError.transport(.disconnected("test dropped the link"))) { try await pending.value }
    }

    @Test func malformedEventsAreDroppedNotTrusted() async throws {
        let controller = ScriptedController()
        let host = try await startedHost(controller)
        controller.deliver(HCIPacket(type: .event, body: [0x0E, 0x05, 0x01]))   // length lies
        controller.deliver(HCIPacket(type: .event, body: [0x3E, 0x01, 0x0A]))   // truncated LE meta
        controller.deliver(HCIPacket(type: .acl, body: [0x01]))
        controller.deliver(HCIPacket(type: .sco, body: [0x01, 0x00, 0x00]))
        // Still answering commands normally.
        _ = try await host.send(HCIReadBDADDR())
        await host.shutdown()
    }
}

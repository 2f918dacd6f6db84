import BLECore
import Bonding
import Central
import HCI
@testable import Host
import Peripheral
import SMP
import Testing
import TestSupport
import VirtualController

/// Both roles on one stack that neither owns: either may start it, each role attaches once, one
/// security setup (the stack's) serves both, and the stack outlives the facades.
@Suite(.scaledTimeLimit(minutes: 1)) struct BLEStackTests {
    static func stack(security: SecuritySetup? = nil) -> BLEStack {
        let radio = VirtualRadio(label: "stack-tests")
        var configuration = BLEStack.Configuration()
        configuration.security = security
        return BLEStack(transport: radio.makeController(configuration: .init(address: BluetoothAddress("C6:00:00:00:00:60")!)),
                        configuration: configuration)
    }

    @Test func eitherRoleStartsTheStackOnceAndEachRoleAttachesOnce() async throws {
        let stack = Self.stack(security: SecuritySetup(store: InMemoryBondStore()))
        let central = try CentralManager(stack: stack)
        // The central comes up first; the peripheral joins the running controller.
        try await central.start()
        let info = try await stack.start()
        let peripheral = try PeripheralManager(stack: stack, configuration: .init(deviceName: "stack"))
        try await peripheral.start()
        #expect(await peripheral.currentState == .poweredOn)
        #expect(await central.currentState == .poweredOn)
        #expect(try await stack.start() == info)
        #expect(peripheral.security === central.security)
        #expect(peripheral.security != nil)

        // A second facade of a role is refused, as is a security setup that would be ignored.
        do {
            _ = try PeripheralManager(stack: stack, configuration: .init(deviceName: "second"))
            Issue.record("a second peripheral role attached")
        } catch {
            #expect(error == .stack(.roleTaken(.peripheral)))
        }
        var secured = PeripheralManager.Configuration(deviceName: "secured")
        secured.security = SecuritySetup(store: InMemoryBondStore())
        do {
            _ = try PeripheralManager(stack: stack, configuration: secured)
            Issue.record("a second security setup was accepted")
        } catch {
            #expect(error == .securityBelongsToTheStack)
        }

        // A facade that leaves frees its role; the stack keeps running until its owner shuts it down.
        await central.shutdown()
        let again = try CentralManager(stack: stack)
        try await again.start()
        #expect(await again.currentState == .poweredOn)
        await again.shutdown()
        await peripheral.shutdown()
        await stack.shutdown()
    }
}

/// The one start both roles share: a waiter that gives up leaves at once without ending the start
/// for the other, and a failed start is tried again by the next caller.
@Suite(.scaledTimeLimit(minutes: 1)) struct StartGateTests {
    /// A start that waits until the test lets it finish, counting its attempts.
    final class ScriptedStart: Sendable {
        let attempts = Locked(0)
        let began = Mailbox<Int>()
        let release = Mailbox<StartGate.Outcome>()
        let cancelled = Locked(false)

        func run() async -> StartGate.Outcome {
            let attempt = attempts.withLock { $0 += 1; return $0 }
            began.deliver(attempt)
            let outcome = await release.next(timeout: .seconds(30).scaledForTests)
            if Task.isCancelled { cancelled.withLock { $0 = true } }
            return outcome ?? .failure(.cancelled)
        }
    }

    @Test func aCancelledWaiterLeavesTheOtherGetsTheResultAndAFailureIsRetried() async throws {
        let script = ScriptedStart()
        let gate = StartGate { await script.run() }
        let giving = Task { await gate.start() }
        let staying = Task { await gate.start() }
        #expect(await script.began.next(timeout: .seconds(30).scaledForTests) == 1)
        giving.cancel()
        guard case .failure(.cancelled) = await giving.value else { Issue.record("the cancelled waiter did not leave"); return }
        script.release.deliver(.failure(.bondStore(.full(max: 1))))
        guard case .failure(.bondStore) = await staying.value else { Issue.record("the other waiter did not get the start's result"); return }
        #expect(!script.cancelled.value, "the start was cancelled while a waiter still waited")
        // Failed: the next caller tries again.
        let again = Task { await gate.start() }
        #expect(await script.began.next(timeout: .seconds(30).scaledForTests) == 2)
        script.release.deliver(.failure(.controller(.shutDown)))
        guard case .failure(.controller(.shutDown)) = await again.value else { Issue.record("the second attempt's result was lost"); return }
    }

    @Test func theLastWaiterToLeaveEndsTheStart() async throws {
        let script = ScriptedStart()
        let gate = StartGate { await script.run() }
        let only = Task { await gate.start() }
        #expect(await script.began.next(timeout: .seconds(30).scaledForTests) == 1)
        only.cancel()
        guard case .failure(.cancelled) = await only.value else { Issue.record("the waiter did not leave"); return }
        gate.shutDown()
        guard case .failure(.controller(.shutDown)) = await gate.start() else { Issue.record("a shut-down stack started"); return }
    }
}

import BLECore
import Bonding
import Central
import HCI
import Host
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

import Foundation
import Glibc
import HCI
import Logging
import Testing

@testable import HCITransports

/// What the kernel user-channel suites share: the controller under test and the events to wait for.
enum KernelHCI {
    static let index: UInt16? = ProcessInfo.processInfo.environment["BLESENSOR_TEST_HCI_USER_CHANNEL"].flatMap { UInt16($0) }
    /// The one CPU the controller's workqueue may run on (hci.sh pins it before btvirt starts).
    static let transmitWorkCPU: Int? = ProcessInfo.processInfo.environment["BLESENSOR_TEST_HCI_TX_WORK_CPU"].flatMap { Int($0) }
    static let btvirtPID: pid_t? = ProcessInfo.processInfo.environment["BLESENSOR_TEST_BTVIRT_PID"].flatMap { pid_t($0) }
    /// A bound on waiting under TCG emulation, not a timing assertion.
    static let liveness: Duration = .seconds(60)

    static func open() async throws -> (HCIUserChannelTransport, EventRecorder) {
        let transport = HCIUserChannelTransport(index: try #require(index), logger: Logger(label: "kernel-hci-test"))
        let recorder = EventRecorder()
        try await transport.open(handler: recorder.handler)
        return (transport, recorder)
    }

    /// Closes and waits until the socket is released, so the next test can bind the controller.
    static func close(_ transport: HCIUserChannelTransport, _ recorder: EventRecorder) async {
        transport.close()
        _ = await recorder.wait(timeout: liveness) { closed($0) }
    }

    static func stop(_ loop: DescriptorEventLoop, _ recorder: EventRecorder) async {
        loop.stop()
        _ = await recorder.wait(timeout: liveness) { closed($0) }
    }

    static func command(_ opcode: UInt16) -> HCIPacket {
        HCIPacket(type: .command, body: [UInt8(truncatingIfNeeded: opcode), UInt8(truncatingIfNeeded: opcode >> 8), 0x00])
    }

    /// The opcodes of the Command Complete events received, in order.
    static func answered(_ events: [HCITransportEvent]) -> [UInt16] {
        events.compactMap { event in
            guard case let .packet(packet) = event else { return nil }
            let bytes = packet.h4Bytes
            guard bytes.count >= 6, bytes[0] == 0x04, bytes[1] == 0x0E else { return nil }
            return UInt16(bytes[4]) | UInt16(bytes[5]) << 8
        }
    }

    static func refusals(_ events: [HCITransportEvent]) -> [HCITransportError] {
        events.compactMap { event in
            if case let .refused(error) = event { return error }
            return nil
        }
    }

    static func closed(_ events: [HCITransportEvent]) -> Bool {
        events.contains { if case .closed = $0 { return true } else { return false } }
    }
}

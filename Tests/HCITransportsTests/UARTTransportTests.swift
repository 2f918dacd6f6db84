#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CBluetoothShim
import HCI
import Logging
import Testing

@testable import HCITransports

/// Exercises the real open/termios/read path through a pseudo-terminal: the transport opens the
/// slave as if it were /dev/ttyAMA0 and the test plays the controller on the master.
@Suite struct UARTTransportTests {
    final class PseudoTerminal {
        let master: Int32
        let slavePath: String

        init() throws {
            var name = [CChar](repeating: 0, count: 256)
            let fd = bls_open_pty_master(&name, name.count)
            guard fd >= 0 else { throw TestSocketError.failed("posix_openpt", errno) }
            master = fd
            slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        func closeMaster() { Glibc.close(master) }
    }

    let reset = HCIPacket(type: .command, body: [0x03, 0x0C, 0x00])
    let commandComplete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    let aclData: [UInt8] = [0x02, 0x40, 0x20, 0x03, 0x00, 0xAA, 0xBB, 0xCC]

    @Test func carriesPacketsBothWaysOverATTY() async throws {
        let pty = try PseudoTerminal()
        defer { pty.closeMaster() }
        let transport = UARTTransport(path: pty.slavePath, baudRate: 1_000_000, flowControl: true, logger: Logger(label: "test"))
        #expect(transport.name == "uart:\(pty.slavePath)?baud=1000000&flow=on")
        let recorder = EventRecorder()
        try await transport.open(handler: recorder.handler)

        try transport.send(reset)
        #expect(try TestIO.read(pty.master, count: 4) == [0x01, 0x03, 0x0C, 0x00])

        try TestIO.writeAll(pty.master, commandComplete + Array(aclData[..<2]))
        try TestIO.writeAll(pty.master, Array(aclData[2...]))
        let packets = await recorder.waitForPackets(2)
        #expect(packets.map(\.h4Bytes) == [commandComplete, aclData])

        // Raw mode: bytes that a cooked tty would translate (CR, ^C, ^D, XON/XOFF) pass untouched.
        let binary: [UInt8] = [0x02, 0x01, 0x00, 0x06, 0x00, 0x0D, 0x0A, 0x03, 0x04, 0x11, 0x13]
        try TestIO.writeAll(pty.master, binary)
        #expect(await recorder.waitForPackets(3).last?.h4Bytes == binary)
        let outbound = HCIPacket(type: .acl, body: [0x01, 0x00, 0x04, 0x00, 0x0A, 0x0D, 0x11, 0x13])
        try transport.send(outbound)
        #expect(try TestIO.read(pty.master, count: outbound.h4Bytes.count) == outbound.h4Bytes)

        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
        #expect(recorder.closures.count == 1)
    }

    @Test func hangUpOfTheDeviceReportsDisconnected() async throws {
        let pty = try PseudoTerminal()
        let transport = UARTTransport(path: pty.slavePath, baudRate: 115_200, flowControl: false, logger: Logger(label: "test"))
        let recorder = EventRecorder()
        try await transport.open(handler: recorder.handler)
        pty.closeMaster()
        let closed = await recorder.waitForClosed()
        guard case .some(.some(.disconnected)) = closed else {
            Issue.record("expected disconnected, got \(String(describing: closed))")
            return
        }
        transport.close()
        #expect(recorder.closures.count == 1)
    }

    @Test func garbageOnTheLineLosesFraming() async throws {
        let pty = try PseudoTerminal()
        defer { pty.closeMaster() }
        let transport = UARTTransport(path: pty.slavePath, baudRate: 9600, flowControl: true, logger: Logger(label: "test"))
        let recorder = EventRecorder()
        try await transport.open(handler: recorder.handler)
        try TestIO.writeAll(pty.master, [0xF0, 0x0E])
        let closed = await recorder.waitForClosed()
        guard case let .some(.some(.framingLost(message))) = closed else {
            Issue.record("expected framingLost, got \(String(describing: closed))")
            return
        }
        #expect(message.contains("0xf0"))
        #expect(message.contains("baud rate"))
    }

    @Test func missingDeviceIsReportedAsNotFound() async {
        let transport = UARTTransport(path: "/dev/ttyDoesNotExist9", baudRate: 115_200, flowControl: true, logger: Logger(label: "test"))
        await #expect(throws: HCITransportError.deviceNotFound("/dev/ttyDoesNotExist9")) {
            try await transport.open { _ in }
        }
    }

    @Test func nonTTYIsRejectedAsNotASerialPort() async {
        let transport = UARTTransport(path: "/dev/null", baudRate: 115_200, flowControl: true, logger: Logger(label: "test"))
        await #expect(throws: HCITransportError.invalidSpecification(transport.name, reason: "/dev/null is not a serial port")) {
            try await transport.open { _ in }
        }
    }

    @Test func unsupportedBaudRateListsTheSupportedOnes() async throws {
        let pty = try PseudoTerminal()
        defer { pty.closeMaster() }
        let transport = UARTTransport(path: pty.slavePath, baudRate: 12345, flowControl: true, logger: Logger(label: "test"))
        await #expect {
            try await transport.open { _ in }
        } throws: { error in
            guard case let .invalidSpecification(_, reason) = error as? HCITransportError else { return false }
            return reason.contains("12345") && reason.contains("9600, 19200, 38400, 57600, 115200")
        }
    }
}

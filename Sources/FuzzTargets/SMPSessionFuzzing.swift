import BLECore
import Bonding
import Dispatch
import HCI
import SMP
import Synchronization

/// SMP as a peer drives it: a sequence of steps read from the input, each an SMP PDU from the
/// central, an Encryption Change (success or failure) or a Long Term Key Request. Invariants: no
/// key is handed out for an unknown EDIV/Rand before the pairing computed one, and nothing is
/// stored unless the link was encrypted first.
enum SMPSessionFuzzing {
    static let ours = DeviceAddress(BluetoothAddress(littleEndian: [0xEF, 0x32, 0x07, 0xDC, 0x1B, 0x00]), type: .publicDevice)
    static let central = DeviceAddress(BluetoothAddress(littleEndian: [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0]), type: .randomDevice)

    static func run(_ bytes: [UInt8]) {
        var input = ByteCursor(bytes)
        guard let setup = input.next() else { return }
        var configuration = SecurityManager.Configuration()
        configuration.policy.ioCapability = [.noInputNoOutput, .displayOnly, .displayYesNo, .keyboardOnly, .keyboardDisplay][Int(setup % 5)]
        configuration.policy.secureConnectionsOnly = setup & 0x08 != 0
        configuration.policy.passkey = .fixed(123_456)
        let store = InMemoryBondStore()
        // A clock nobody advances: no timer thread, and the 30 s timeout never fires mid-input.
        let manager = SecurityManager(configuration: configuration, store: store, agent: AutomaticPairingAgent(), clock: ManualClock(),
                                      localAddress: { _ in ours }, send: { _, _ in },
                                      randomBytes: { count in [UInt8](repeating: 0x5A, count: count) })
        // The identity the manager needs; an in-memory store answers without suspending for long.
        let started = Atomic<Bool>(false)
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            _ = try? await manager.start()
            started.store(true, ordering: .sequentiallyConsistent)
            semaphore.signal()
        }
        semaphore.wait()
        guard started.load(ordering: .sequentiallyConsistent) else { return }
        let link = Link(handle: 0x40, role: .peripheral, peer: central, parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        manager.linkOpened(link)
        var encrypted = false
        while let step = input.next() {
            switch step % 4 {
            case 0, 1:
                let length = Int(input.next() ?? 0) % 70
                manager.receive(input.take(length), on: link)
            case 2:
                let success = (input.next() ?? 0) & 1 == 0
                encrypted = encrypted || success
                manager.encryptionChanged(on: link, status: success ? .success : .pinOrKeyMissing)
            default:
                // An LTK request for a key nobody made: only a pairing's own key (EDIV/Rand 0) or a bond's.
                let ediv = UInt16(input.next() ?? 0) | 1
                FuzzInvariant.check(manager.longTermKey(for: link, random: 0x1234, ediv: ediv) == nil, "a key for an unknown EDIV")
            }
        }
        FuzzInvariant.check(encrypted || manager.bonds.isEmpty, "a bond was stored on a link that never encrypted")
        manager.linkClosed(link)
    }
}

import ATT
import BLECore
import Dispatch
@_spi(Fuzzing) import GATTClient
import HCI
import L2CAP
import Synchronization

/// The GATT client against a hostile server: MTU exchange, service, characteristic and descriptor
/// discovery, reads, writes and a subscription, each request answered by the next PDU of the
/// input (any bytes: wrong opcodes, truncated lists, handles that go backwards or never advance,
/// notifications and indications in between). When the input runs out the link closes. Every
/// procedure must end, with a value or an error: a discovery that loops on a response that does
/// not advance hangs the target (libFuzzer's -timeout), and none of its answers may break the
/// handle order the spec guarantees.
enum GATTClientFuzzing {
    static func run(_ bytes: [UInt8]) {
        var input = ByteCursor(bytes)
        var answers: [[UInt8]] = []
        while let length = input.next() {
            answers.append(input.take(Int(length) % 100))
        }
        let changed = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        let link = Link(handle: 0x40, role: .central,
                        peer: DeviceAddress(BluetoothAddress(littleEndian: [6, 5, 4, 3, 2, 0xC1]), type: .randomDevice),
                        parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        // The transaction timeout never fires: the clock is never advanced.
        let client = GATTClient(link: link, configuration: .init(clock: ManualClock(), updateBufferLimit: 16),
                                output: ATTBearer(send: { _, _ in
                                    changed.signal()
                                    return .sent
                                }, waitForRoom: { _ in }, hasRoomForCommand: { _ in true }))
        let services = Mutex<[RemoteService]>([])
        Task {
            _ = try? await client.exchangeMTU()
            let found = (try? await client.discoverPrimaryServices()) ?? []
            services.withLock { $0 = found }
            for service in found.prefix(2) {
                _ = try? await client.discoverIncludedServices(of: service)
                let characteristics = (try? await client.discoverCharacteristics(of: service)) ?? []
                for characteristic in characteristics.prefix(2) {
                    _ = try? await client.read(characteristic)
                    let descriptors = (try? await client.discoverDescriptors(of: characteristic)) ?? []
                    if let descriptor = descriptors.first { _ = try? await client.readDescriptor(descriptor) }
                    _ = try? await client.write([0x01, 0x02], to: characteristic)
                    _ = try? await client.setNotify(true, for: characteristic)
                }
            }
            _ = try? await client.read(handle: 0x0003)
            _ = try? await client.write(Array(repeating: 0x5A, count: 40), toHandle: 0x0003)
            finished.store(true, ordering: .sequentiallyConsistent)
            changed.signal()
        }
        var next = 0
        while !finished.load(ordering: .sequentiallyConsistent) {
            // A response completes the request at once; the next one is sent by the procedure's
            // task, which signals. No wall-clock bound: a procedure that never ends is the finding.
            guard client.isAwaitingResponse else {
                changed.wait()
                continue
            }
            if next < answers.count {
                client.receive(answers[next])
                next += 1
            } else {
                client.linkClosed()
                changed.wait()
            }
        }
        for service in services.withLock({ $0 }) {
            FuzzInvariant.check(service.handles.lowerBound >= 1, "a service at handle 0: \(service)")
        }
    }
}

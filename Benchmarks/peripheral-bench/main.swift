// Host cost of one notification through the whole peripheral stack: from
// `PeripheralManager.updateValue` (subscriber lookup, notification engine, L2CAP and ATT framing,
// ACL credit accounting and fragmentation) to the H4 bytes handed to the transport.
//
// Build and run:  swift build -c release --product peripheral-bench && $(swift build -c release --show-bin-path)/peripheral-bench
//
// The transport is a stand-in that answers commands and only counts ACL bytes (the transport write
// is excluded, as the target says). Centrals are injected as LE connections that exchange MTU 247
// and subscribe through real ATT Write Requests to the CCCD. Each timed round sends as many
// updates as the controller's credits allow; credits are returned between rounds, untimed. Heap
// allocations come from MallocCounter (see Benchmarks/MallocCounter/MallocCounter.c).
import BLECore
import GATT
import MallocCounter
import Peripheral

let characteristic = CharacteristicID("bench.value")

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

func makePeripheral(centrals: Int) async throws -> (PeripheralManager, BenchController) {
    let controller = BenchController()
    var configuration = PeripheralManager.Configuration(deviceName: "bench")
    configuration.maxConnections = 8
    let manager = PeripheralManager(transport: controller, configuration: configuration)
    try await manager.start()
    try await manager.add(GATTService(uuid: BluetoothUUID(0xFFF0), characteristics: [
        GATTCharacteristic(id: characteristic, uuid: BluetoothUUID(0xFFF1), properties: [.notify], permissions: []),
    ]))
    try await manager.publish()
    let cccd = await manager.database!.cccdHandle(for: characteristic)!
    for handle in 1...UInt16(centrals) {
        controller.connect(handle: handle)
        // One request at a time, as a central does: the server drops a request sent before the
        // previous one was answered.
        controller.receiveATT([0x02, 0xF7, 0x00], on: handle)                       // Exchange MTU 247
        await controller.waitForResponses(1, on: handle)
        controller.receiveATT([0x12, UInt8(cccd & 0xFF), UInt8(cccd >> 8), 0x01, 0x00], on: handle)   // enable notifications
        await controller.waitForResponses(2, on: handle)
    }
    return (manager, controller)
}

func measure(valueLength: Int, centrals: Int) async throws -> (ns: Double, allocations: Double, delivered: Bool) {
    let (manager, controller) = try await makePeripheral(centrals: centrals)
    let value = (0..<valueLength).map { UInt8(truncatingIfNeeded: $0) }
    let links = manager.host.links.openLinks
    // Credits per round: the controller holds 255 packets; one per central per update.
    let updatesPerRound = 240 / centrals
    func returnCredits() {
        for link in links {
            let inFlight = manager.host.acl.packetsInFlight(on: link)
            if inFlight > 0 { manager.host.acl.completePackets([.init(handle: link.handle, completed: UInt16(inFlight))]) }
        }
    }
    for _ in 0..<20 {   // warm-up
        for _ in 0..<updatesPerRound { _ = manager.updateValue(value, for: characteristic) }
        returnCredits()
    }
    let packetsBefore = controller.aclPackets.load(ordering: .relaxed)
    var samples: [Double] = []
    var allocations: UInt64 = 0
    let clock = ContinuousClock()
    for _ in 0..<400 {
        let allocationsBefore = malloc_counter_allocations()
        let elapsed = clock.measure {
            for _ in 0..<updatesPerRound { _ = manager.updateValue(value, for: characteristic) }
        }
        allocations += malloc_counter_allocations() - allocationsBefore
        samples.append(nanoseconds(elapsed) / Double(updatesPerRound * centrals))
        returnCredits()
    }
    samples.sort()
    let sent = controller.aclPackets.load(ordering: .relaxed) - packetsBefore
    let expected = 400 * updatesPerRound * centrals
    await manager.shutdown()
    return (samples[samples.count / 2], Double(allocations) / Double(expected), sent == expected)
}

print("peripheral-bench: updateValue → H4 bytes at the transport, per notification per central (release build)")
func column(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

func decimal(_ value: Double, _ places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale), fraction = String(abs(scaled) % Int(scale))
    return "\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
}

print("value bytes  centrals  ns/notification  allocations/notification  all delivered")
for (length, centrals) in [(20, 1), (20, 8), (244, 1), (244, 8)] {
    let result = try await measure(valueLength: length, centrals: centrals)
    print("\(column(String(length), 11))  \(column(String(centrals), 8))  \(column(decimal(result.ns, 1), 15))  \(column(decimal(result.allocations, 2), 24))  \(result.delivered)")
}

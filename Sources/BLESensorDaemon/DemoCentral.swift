import BLECore
import GAP
import HCI
import Logging
import VirtualController

/// In demo mode, a phone-like central on the virtual radio that keeps finding, connecting to and
/// leaving the daemon's peripheral, so a user without hardware sees the whole flow in the log.
struct DemoCentral: Sendable {
    let radio: VirtualRadio
    let peripheralName: String
    let logger: Logger
    var connectedTime: Duration = .seconds(4)
    var pause: Duration = .seconds(3)

    func run() async {
        let central = radio.makeCentral(address: DeviceAddress(BluetoothAddress("C0:DE:00:00:00:01")!, type: .randomDevice))
        while !Task.isCancelled {
            let results = await central.scan(for: .seconds(1))
            guard let target = results.first(where: { advertisesName($0) }) else {
                logger.info("demo central: \(peripheralName) not heard yet")
                try? await Task.sleep(for: pause)
                continue
            }
            logger.info("demo central: heard \(target.address), \(target.advertisingData.count) bytes of advertising data, \(target.scanResponseData?.count ?? 0) bytes of scan response")
            do {
                let link = try await central.connect(to: target.address)
                try? await Task.sleep(for: connectedTime)
                link.disconnect(reason: .remoteUserTerminated)
            } catch {
                logger.warning("demo central: \(error)")
            }
            try? await Task.sleep(for: pause)
        }
    }

    private func advertisesName(_ result: VirtualCentral.ScanResult) -> Bool {
        let structures = (try? ADStructure.parse(result.advertisingData + (result.scanResponseData ?? []))) ?? []
        let wanted = Array(peripheralName.utf8)
        return structures.contains { structure in
            (structure.type == ADType.completeLocalName && structure.data == wanted)
                || (structure.type == ADType.shortenedLocalName && wanted.starts(with: structure.data))
        }
    }
}

import ArgumentParser
import BLECore
import GAP

/// Shows where a name and service UUIDs land in the 31-byte packets before anything is deployed.
struct AdvertisingPlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advertising-plan",
        abstract: "Show the advertising data and scan response blesensord would send for a name and service UUIDs.")

    @Option(help: "Local name.")
    var name: String?

    @Option(name: .customLong("service-uuid"), help: "A service UUID (repeatable).")
    var serviceUUIDs: [String] = []

    func run() throws {
        var uuids: [BluetoothUUID] = []
        for text in serviceUUIDs {
            guard let uuid = BluetoothUUID(text) else {
                throw ValidationError("'\(text)' is not a UUID: use 4 or 8 hex digits (180D) or the 36-character form")
            }
            uuids.append(uuid)
        }
        let plan: AdvertisingPlan
        do {
            plan = try AdvertisingPlanner.plan(AdvertisingContent(localName: name, serviceUUIDs: uuids))
        } catch {
            throw ValidationError(error.description)
        }
        print("advertising data (\(plan.advertisingData.count)/31): \(plan.advertisingData.hexString)")
        describe(plan.advertisingData)
        print("scan response    (\(plan.scanResponseData.count)/31): \(plan.scanResponseData.hexString)")
        describe(plan.scanResponseData)
        if plan.nameShortened { print("note: the name is shortened; centrals read the full name from the Device Name characteristic") }
        if !plan.omittedServiceUUIDs.isEmpty {
            print("did not fit: \(plan.omittedServiceUUIDs.map(\.description).joined(separator: ", "))")
        }
    }

    private func describe(_ bytes: [UInt8]) {
        for structure in (try? ADStructure.parse(bytes)) ?? [] {
            print("  \(structure)")
        }
    }
}

import BLECore

/// The published, immutable attribute table with the lookups an ATT server needs.
/// Handles are contiguous from 0x0001, so a handle indexes the table directly.
public struct AttributeDatabase: Sendable {
    public let attributes: [Attribute]
    public let services: [GATTService]
    public let builtInServices: BuiltInServices?
    /// The Database Hash characteristic value (little-endian CMAC), also computed for bare databases.
    public let databaseHash: [UInt8]
    private let groups: [ServiceGroup]
    public let characteristics: [DatabaseCharacteristic]
    private let characteristicIndexByID: [CharacteristicID: Int]
    private let characteristicIndexByValueHandle: [UInt16: Int]

    init(plan: LayoutPlan, services: [GATTService], builtInServices: BuiltInServices?, databaseHash: [UInt8]) {
        attributes = plan.attributes
        groups = plan.groups
        characteristics = plan.characteristics
        self.services = services
        self.builtInServices = builtInServices
        self.databaseHash = databaseHash
        var byID: [CharacteristicID: Int] = [:]
        var byValue: [UInt16: Int] = [:]
        for (index, characteristic) in plan.characteristics.enumerated() {
            byID[characteristic.id] = index
            byValue[characteristic.valueHandle] = index
        }
        characteristicIndexByID = byID
        characteristicIndexByValueHandle = byValue
    }

    /// Builds a database in one call.
    public static func build(
        services: [GATTService], builtInServices: BuiltInServices?
    ) throws(GATTDatabaseError) -> AttributeDatabase {
        var builder = try AttributeDatabaseBuilder(builtInServices: builtInServices)
        for service in services { try builder.add(service) }
        return try builder.build()
    }

    /// The highest handle in use, 0 for an empty database.
    public var lastHandle: UInt16 { UInt16(attributes.count) }

    public func attribute(at handle: UInt16) -> Attribute? {
        guard handle >= 1, Int(handle) <= attributes.count else { return nil }
        return attributes[Int(handle) - 1]
    }

    /// Attributes whose handles fall in `range`, ascending; empty when none do.
    public func attributes(in range: ClosedRange<UInt16>) -> ArraySlice<Attribute> {
        let lower = max(Int(range.lowerBound), 1)
        let upper = min(Int(range.upperBound), attributes.count)
        guard lower <= upper else { return [] }
        return attributes[(lower - 1)..<upper]
    }

    /// Every service group in handle order.
    public var serviceGroups: [ServiceGroup] { groups }

    public func serviceGroups(type kind: GATTServiceKind) -> [ServiceGroup] {
        groups.filter { $0.kind == kind }
    }

    /// The service group containing `handle`.
    public func serviceGroup(containing handle: UInt16) -> ServiceGroup? {
        groups.first { $0.handles.contains(handle) }
    }

    public func characteristic(id: CharacteristicID) -> DatabaseCharacteristic? {
        characteristicIndexByID[id].map { characteristics[$0] }
    }

    public func characteristic(forValueHandle handle: UInt16) -> DatabaseCharacteristic? {
        characteristicIndexByValueHandle[handle].map { characteristics[$0] }
    }

    /// The characteristic whose definition (declaration to last descriptor) contains `handle`.
    public func characteristic(containing handle: UInt16) -> DatabaseCharacteristic? {
        characteristics.first { ($0.declarationHandle...$0.endHandle).contains(handle) }
    }

    public func valueHandle(for id: CharacteristicID) -> UInt16? {
        characteristic(id: id)?.valueHandle
    }

    public func cccdHandle(for id: CharacteristicID) -> UInt16? {
        characteristic(id: id)?.cccdHandle
    }

    public func characteristics(withUUID uuid: BluetoothUUID) -> [DatabaseCharacteristic] {
        characteristics.filter { $0.uuid == uuid }
    }
}

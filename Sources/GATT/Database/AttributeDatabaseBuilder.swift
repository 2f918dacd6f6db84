import BLECore

/// Collects services and publishes an immutable `AttributeDatabase`. `add` checks a service as soon
/// as it arrives so an API like `PeripheralManager.add(service)` can report the reason at once.
public struct AttributeDatabaseBuilder: Sendable {
    public let builtInServices: BuiltInServices?
    public private(set) var services: [GATTService] = []
    private var attributeCount: Int
    private var characteristicIDs: Set<CharacteristicID> = []

    /// `builtInServices` nil builds a bare database (tests, or an application that declares 1800/1801 itself).
    public init(builtInServices: BuiltInServices?) throws(GATTDatabaseError) {
        self.builtInServices = builtInServices
        self.attributeCount = 0
        if let builtIns = builtInServices {
            let nameLength = builtIns.deviceName.utf8.count
            if nameLength > BuiltInServices.maximumDeviceNameLength { throw .deviceNameTooLong(nameLength) }
            if let problem = builtIns.preferredConnectionParameters?.problem {
                throw .invalidPreferredConnectionParameters(problem)
            }
            try add(builtIns.genericAccessService, builtIn: true)
            try add(builtIns.genericAttributeService, builtIn: true)
        }
    }

    public mutating func add(_ service: GATTService) throws(GATTDatabaseError) {
        try add(service, builtIn: false)
    }

    private mutating func add(_ service: GATTService, builtIn: Bool) throws(GATTDatabaseError) {
        if !builtIn, builtInServices != nil,
           service.uuid == GATTUUID.genericAccessService || service.uuid == GATTUUID.genericAttributeService {
            throw .builtInServiceRedeclared(service.uuid)
        }
        if services.contains(where: { $0.uuid == service.uuid }) { throw .duplicateService(service.uuid) }

        var resolved = service
        var newIDs: Set<CharacteristicID> = []
        for index in resolved.characteristics.indices {
            let characteristic = resolved.characteristics[index]
            let id: CharacteristicID
            if let explicit = characteristic.id {
                id = explicit
                if characteristicIDs.contains(id) || newIDs.contains(id) { throw .duplicateCharacteristicID(id) }
            } else {
                // Derived ids stay stable as long as the declaration order does.
                let base = "\(service.uuid)/\(characteristic.uuid)"
                var candidate = CharacteristicID(base)
                var instance = 2
                while characteristicIDs.contains(candidate) || newIDs.contains(candidate) {
                    candidate = CharacteristicID("\(base)#\(instance)")
                    instance += 1
                }
                id = candidate
            }
            newIDs.insert(id)
            resolved.characteristics[index].id = id
        }
        try ServiceValidator.validate(resolved)

        let total = attributeCount + resolved.attributeCount
        if total > Int(UInt16.max) { throw .databaseFull(requiredAttributes: total) }

        services.append(resolved)
        attributeCount = total
        characteristicIDs.formUnion(newIDs)
    }

    /// Lays out every service and computes the Database Hash.
    public func build() throws(GATTDatabaseError) -> AttributeDatabase {
        try checkIncludes()
        var plan = try LayoutPlan(services: services)
        let hash: [UInt8]
        do {
            hash = try DatabaseHash.characteristicValue(for: plan.attributes)
        } catch {
            throw .hashFailed(error)
        }
        if builtInServices != nil { plan.setFixedValue(hash, for: .databaseHash) }
        return AttributeDatabase(plan: plan, services: services, builtInServices: builtInServices, databaseHash: hash)
    }

    private func checkIncludes() throws(GATTDatabaseError) {
        var byUUID: [BluetoothUUID: GATTService] = [:]
        for service in services { byUUID[service.uuid] = service }
        for service in services {
            for included in service.includedServices {
                if included == service.uuid { throw .serviceIncludesItself(service.uuid) }
                if byUUID[included] == nil { throw .includedServiceNotFound(service: service.uuid, included: included) }
            }
        }
        // A service shall not include, directly or through others, a service that includes it back.
        var finished: Set<BluetoothUUID> = []
        for service in services where !finished.contains(service.uuid) {
            var path: [BluetoothUUID] = []
            try visit(service.uuid, byUUID: byUUID, path: &path, finished: &finished)
        }
    }

    private func visit(
        _ uuid: BluetoothUUID, byUUID: [BluetoothUUID: GATTService],
        path: inout [BluetoothUUID], finished: inout Set<BluetoothUUID>
    ) throws(GATTDatabaseError) {
        if let start = path.firstIndex(of: uuid) { throw .includeCycle(Array(path[start...]) + [uuid]) }
        if finished.contains(uuid) { return }
        path.append(uuid)
        for included in byUUID[uuid]?.includedServices ?? [] {
            try visit(included, byUUID: byUUID, path: &path, finished: &finished)
        }
        path.removeLast()
        finished.insert(uuid)
    }
}

import BLECore
import Testing
@testable import GATT

@Suite struct ValidationTests {
    static let serviceUUID = BluetoothUUID(0xFFF0)

    private func add(_ characteristic: GATTCharacteristic) throws(GATTDatabaseError) {
        var builder = try AttributeDatabaseBuilder(builtInServices: nil)
        try builder.add(GATTService(uuid: Self.serviceUUID, characteristics: [characteristic]))
    }

    private func characteristic(
        _ properties: CharacteristicProperties, _ permissions: AttributePermissions, value: GATTValue = .dynamic,
        extended: ExtendedProperties = [], descriptors: [GATTDescriptor] = []
    ) -> GATTCharacteristic {
        GATTCharacteristic(id: "c", uuid: BluetoothUUID(0xFFF1), properties: properties, permissions: permissions,
                           value: value, extendedProperties: extended, descriptors: descriptors)
    }

    @Test func duplicateServiceUUIDIsRejected() throws {
        var builder = try AttributeDatabaseBuilder(builtInServices: nil)
        try builder.add(GATTService(uuid: Self.serviceUUID))
        #expect(throws: GATTDatabaseError.duplicateService(Self.serviceUUID)) {
            try builder.add(GATTService(uuid: Self.serviceUUID, isPrimary: false))
        }
        #expect(builder.services.count == 1)
        #expect(GATTDatabaseError.duplicateService(Self.serviceUUID).description.contains("already in the database"))
    }

    @Test func builtInServicesCannotBeAddedAgain() throws {
        var builder = try AttributeDatabaseBuilder(builtInServices: Fixtures.builtIns)
        #expect(throws: GATTDatabaseError.builtInServiceRedeclared(GATTUUID.genericAccessService)) {
            try builder.add(GATTService(uuid: GATTUUID.genericAccessService))
        }
        #expect(throws: GATTDatabaseError.builtInServiceRedeclared(GATTUUID.genericAttributeService)) {
            try builder.add(GATTService(uuid: GATTUUID.genericAttributeService))
        }
    }

    @Test func staticValuesMustBeReadOnly() {
        #expect(throws: GATTDatabaseError.staticValueOnWriteableCharacteristic("c")) {
            try add(characteristic([.read, .write], [.readable, .writeable], value: .static([1])))
        }
        #expect(throws: GATTDatabaseError.staticValueOnNotifyingCharacteristic("c")) {
            try add(characteristic([.read, .notify], .readable, value: .static([1])))
        }
        #expect(throws: GATTDatabaseError.staticValueOnNotifyingCharacteristic("c")) {
            try add(characteristic([.read, .indicate], .readable, value: .static([1])))
        }
        #expect(throws: GATTDatabaseError.staticValueNotReadable("c")) {
            try add(characteristic(.broadcast, [], value: .static([1])))
        }
    }

    @Test func propertiesAndPermissionsMustAgree() {
        #expect(throws: GATTDatabaseError.writePropertyWithoutWriteablePermission("c")) {
            try add(characteristic(.write, []))
        }
        #expect(throws: GATTDatabaseError.writePropertyWithoutWriteablePermission("c")) {
            try add(characteristic(.authenticatedSignedWrites, []))
        }
        #expect(throws: GATTDatabaseError.readPropertyWithoutReadablePermission("c")) {
            try add(characteristic(.read, []))
        }
        #expect(throws: GATTDatabaseError.writeablePermissionWithoutWriteProperty("c")) {
            try add(characteristic(.notify, .writeable))
        }
        #expect(throws: GATTDatabaseError.readablePermissionWithoutReadProperty("c")) {
            try add(characteristic(.notify, .readable))
        }
        #expect(throws: GATTDatabaseError.reliableWriteWithoutWriteProperty("c")) {
            try add(characteristic(.writeWithoutResponse, .writeable, extended: .reliableWrite))
        }
    }

    @Test func securityNeedsTheAccessItProtects() {
        #expect(throws: GATTDatabaseError.self) {
            try add(characteristic(.write, [.writeable, .readEncryptionRequired]))
        }
        #expect(throws: GATTDatabaseError.self) {
            try add(characteristic(.read, [.readable, .writeAuthenticationRequired]))
        }
        do {
            try add(characteristic(.read, [.readable, .readAuthenticationRequired]))
        } catch {
            Issue.record("valid secure characteristic refused: \(error)")
        }
        let error = GATTDatabaseError.securityWithoutAccess("c", attribute: BluetoothUUID(0xFFF1), detail: "x")
        #expect(error.description.contains("FFF1"))
    }

    @Test func valuesAreLimitedTo512Bytes() throws {
        try add(characteristic(.read, .readable, value: .static([UInt8](repeating: 0, count: 512))))
        #expect(throws: GATTDatabaseError.valueTooLong("c", attribute: BluetoothUUID(0xFFF1), length: 513)) {
            try add(characteristic(.read, .readable, value: .static([UInt8](repeating: 0, count: 513))))
        }
        let longDescription = GATTDescriptor(uuid: GATTUUID.userDescription, value: .static([UInt8](repeating: 0x41, count: 600)))
        #expect(throws: GATTDatabaseError.valueTooLong("c", attribute: GATTUUID.userDescription, length: 600)) {
            try add(characteristic(.read, .readable, descriptors: [longDescription]))
        }
    }

    @Test(arguments: [GATTUUID.clientCharacteristicConfiguration, GATTUUID.serverCharacteristicConfiguration,
                      GATTUUID.extendedProperties])
    func generatedDescriptorsCannotBeSupplied(uuid: BluetoothUUID) {
        let descriptor = GATTDescriptor(uuid: uuid, permissions: [.readable, .writeable], value: .dynamic)
        #expect(throws: GATTDatabaseError.generatedDescriptorSupplied("c", descriptor: uuid)) {
            try add(characteristic(.notify, [], descriptors: [descriptor]))
        }
    }

    @Test func descriptorRules() throws {
        let writeableStatic = GATTDescriptor(uuid: GATTUUID.userDescription, permissions: [.readable, .writeable], value: .static([0x41]))
        #expect(throws: GATTDatabaseError.staticDescriptorWriteable("c", descriptor: GATTUUID.userDescription)) {
            try add(characteristic(.read, .readable, descriptors: [writeableStatic]))
        }
        #expect(throws: GATTDatabaseError.writableAuxiliariesWithoutWriteableUserDescription("c")) {
            try add(characteristic(.read, .readable, extended: .writableAuxiliaries, descriptors: [.userDescription("x")]))
        }
        let writeableDescription = GATTDescriptor(uuid: GATTUUID.userDescription, permissions: [.readable, .writeable], value: .dynamic)
        try add(characteristic(.read, .readable, extended: .writableAuxiliaries, descriptors: [writeableDescription]))
    }

    @Test func zeroAndDeclarationUUIDsAreRejected() throws {
        var builder = try AttributeDatabaseBuilder(builtInServices: nil)
        #expect(throws: GATTDatabaseError.zeroUUID(context: "service")) {
            try builder.add(GATTService(uuid: GATTUUID.zero))
        }
        #expect(throws: GATTDatabaseError.reservedUUID(GATTUUID.characteristic, context: "service")) {
            try builder.add(GATTService(uuid: GATTUUID.characteristic))
        }
        let zeroCharacteristic = GATTCharacteristic(id: "z", uuid: GATTUUID.zero, properties: .notify, permissions: [])
        #expect(throws: GATTDatabaseError.zeroUUID(context: "characteristic z")) {
            try builder.add(GATTService(uuid: Self.serviceUUID, characteristics: [zeroCharacteristic]))
        }
        #expect(throws: GATTDatabaseError.zeroUUID(context: "a descriptor of characteristic c")) {
            try add(characteristic(.read, .readable, descriptors: [GATTDescriptor(uuid: GATTUUID.zero, value: .static([]))]))
        }
    }

    @Test func characteristicIDsMustBeUnique() throws {
        var builder = try AttributeDatabaseBuilder(builtInServices: Fixtures.builtIns)
        let first = GATTCharacteristic(id: "same", uuid: BluetoothUUID(0xFFF1), properties: .notify, permissions: [])
        #expect(throws: GATTDatabaseError.duplicateCharacteristicID("same")) {
            try builder.add(GATTService(uuid: Self.serviceUUID, characteristics: [first, first]))
        }
        let builtInClash = GATTCharacteristic(id: .deviceName, uuid: BluetoothUUID(0xFFF1), properties: .notify, permissions: [])
        #expect(throws: GATTDatabaseError.duplicateCharacteristicID(.deviceName)) {
            try builder.add(GATTService(uuid: Self.serviceUUID, characteristics: [builtInClash]))
        }
    }

    @Test func includesMustResolveWithoutCycles() throws {
        let a = BluetoothUUID(0xFFA0), b = BluetoothUUID(0xFFB0), c = BluetoothUUID(0xFFC0)
        var missing = try AttributeDatabaseBuilder(builtInServices: nil)
        try missing.add(GATTService(uuid: a, includedServices: [b]))
        #expect(throws: GATTDatabaseError.includedServiceNotFound(service: a, included: b)) { try missing.build() }

        var selfInclude = try AttributeDatabaseBuilder(builtInServices: nil)
        try selfInclude.add(GATTService(uuid: a, includedServices: [a]))
        #expect(throws: GATTDatabaseError.serviceIncludesItself(a)) { try selfInclude.build() }

        var cycle = try AttributeDatabaseBuilder(builtInServices: nil)
        try cycle.add(GATTService(uuid: a, includedServices: [b]))
        try cycle.add(GATTService(uuid: b, isPrimary: false, includedServices: [c]))
        try cycle.add(GATTService(uuid: c, isPrimary: false, includedServices: [a]))
        #expect(throws: GATTDatabaseError.includeCycle([a, b, c, a])) { try cycle.build() }
        #expect(GATTDatabaseError.includeCycle([a, b, a]).description.contains("FFA0 → FFB0 → FFA0"))
    }

    @Test func handleSpaceIsBounded() throws {
        // 1 service declaration + 2 attributes per characteristic.
        let characteristics = (0..<32_767).map { index in
            GATTCharacteristic(id: CharacteristicID("c\(index)"), uuid: BluetoothUUID(0xFFF1), properties: .writeWithoutResponse, permissions: .writeable)
        }
        var builder = try AttributeDatabaseBuilder(builtInServices: nil)
        try builder.add(GATTService(uuid: Self.serviceUUID, characteristics: characteristics))
        let db = try builder.build()
        #expect(db.lastHandle == 0xFFFF)
        let oneMore = GATTService(uuid: BluetoothUUID(0xFFF2))
        #expect(throws: GATTDatabaseError.databaseFull(requiredAttributes: 65_536)) { try builder.add(oneMore) }
    }

    @Test func builtInConfigurationIsChecked() {
        #expect(throws: GATTDatabaseError.deviceNameTooLong(249)) {
            try AttributeDatabaseBuilder(builtInServices: BuiltInServices(deviceName: String(repeating: "n", count: 249)))
        }
        let badParameters = PreferredConnectionParameters(minimumInterval: 100, maximumInterval: 50, peripheralLatency: 0, supervisionTimeout: 400)
        #expect(throws: GATTDatabaseError.self) {
            try AttributeDatabaseBuilder(builtInServices: BuiltInServices(deviceName: "x", preferredConnectionParameters: badParameters))
        }
        #expect(badParameters.problem?.contains("above maximum") == true)
        #expect(PreferredConnectionParameters(minimumInterval: 6, maximumInterval: 3200, peripheralLatency: 499, supervisionTimeout: 3200).problem == nil)
        #expect(PreferredConnectionParameters(minimumInterval: 6, maximumInterval: 12, peripheralLatency: 500, supervisionTimeout: 3200).problem != nil)
    }
}

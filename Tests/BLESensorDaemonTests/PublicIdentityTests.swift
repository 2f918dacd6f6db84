import BLECore
import HCI
import Peripheral
import Testing
import VirtualController

@testable import BLESensorDaemon

/// `address: public`: the controller's address is reported, and a known shared default is warned about.
@Suite struct PublicIdentityTests {
    @Test func aPiWhoseFirmwareGotNoAddressIsWarnedAbout() async throws {
        let radio = VirtualRadio(label: "public-identity-tests")
        let defaultAddress = try #require(BluetoothAddress("43:45:C0:00:1F:AC"))
        var configuration = PeripheralManager.Configuration(deviceName: "blesensor")
        configuration.addressPolicy = .publicAddress
        let manager = PeripheralManager(transport: radio.makeController(configuration: .init(address: defaultAddress)),
                                        configuration: configuration)
        #expect(await PublicIdentity.report(for: manager).status == "public address (not read yet)")
        try await manager.start()
        let report = await PublicIdentity.report(for: manager)
        await manager.shutdown()
        #expect(report.status == "43:45:C0:00:1F:AC (public; a default shared by many controllers: set `address: random`)")
        let warning = try #require(report.warning)
        #expect(warning.contains("43:45:C0:00:1F:AC is the default of Broadcom/Cypress BCM4345C0 controllers (Raspberry Pi 3B+, 4, 400, CM4)"))
        #expect(warning.contains("Set `address: random` (the default)"))
    }

    @Test func anAddressOfItsOwnIsJustReported() throws {
        let address = try #require(BluetoothAddress("B8:27:EB:12:34:56"))
        let report = PublicIdentity.report(for: address)
        #expect(report == PublicIdentity.Report(status: "B8:27:EB:12:34:56 (public)", warning: nil))
    }

    @Test(arguments: ["00:1A:7D:DA:71:13", "00:00:00:00:00:00", "FF:FF:FF:FF:FF:FF", "AA:AA:AA:AA:AA:AA", "11:22:33:44:55:66", "43:43:A1:12:1F:AC"])
    func otherSharedDefaultsAreWarnedAboutToo(text: String) throws {
        let address = try #require(BluetoothAddress(text))
        #expect(PublicIdentity.report(for: address).warning?.contains(text) == true)
    }

    @Test func everyKnownDefaultIsAWellFormedAddressListedOnce() throws {
        for entry in SharedDefaultAddress.known {
            let address = try #require(BluetoothAddress(entry.address), "\(entry.address)")
            #expect(address.description == entry.address)
            #expect(SharedDefaultAddress.lookup(address) == entry)
        }
        #expect(Set(SharedDefaultAddress.known.map(\.address)).count == SharedDefaultAddress.known.count)
        // Lower case on input is the same address.
        #expect(SharedDefaultAddress.lookup(try #require(BluetoothAddress("43:45:c0:00:1f:ac")))?.address == "43:45:C0:00:1F:AC")
    }
}

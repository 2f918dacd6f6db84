import Sensors
import Testing
@testable import BridgeConfiguration

/// The catalogue is what every list of drivers comes from; these check it is consistent with the
/// loader, so a new descriptor cannot declare an option nobody parses.
@Suite struct DriverCatalogueTests {
    @Test func namesAreUniqueAndFoundByName() {
        let names = SensorDriver.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        for name in names { #expect(SensorDriver(rawValue: name)?.rawValue == name) }
        #expect(SensorDriver(rawValue: "hdc1081") == nil)
    }

    @Test func everyDeclaredOptionIsParsedByTheLoader() {
        for driver in SensorDriver.allCases {
            for key in driver.descriptor.optionKeys {
                #expect(SensorSection.parsedOptionKeys.contains(key), "\(driver.rawValue) declares '\(key)', which the loader does not parse")
            }
        }
        // And every key the loader parses belongs to some driver.
        for (key, drivers) in SensorSection.optionDrivers { #expect(!drivers.isEmpty, "no driver takes '\(key)'") }
    }

    @Test func i2cDriversHaveAnAddressAndTheOthersNone() {
        for driver in SensorDriver.allCases {
            #expect((driver.i2c != nil) == (driver.defaultAddress != nil), "\(driver.rawValue)")
            if let address = driver.defaultAddress { #expect((0x03...0x77).contains(address), "\(driver.rawValue)") }
        }
    }
}

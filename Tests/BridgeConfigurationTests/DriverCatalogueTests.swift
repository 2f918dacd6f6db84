import Sensors
import Testing
@testable import BridgeConfiguration

/// The catalogue is what every list of drivers comes from; these check it is consistent with the
/// loader, so a new descriptor cannot declare an option it does not read.
@Suite struct DriverCatalogueTests {
    @Test func namesAreUniqueAndFoundByName() {
        let names = SensorDriver.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        for name in names { #expect(SensorDriver(rawValue: name)?.rawValue == name) }
        #expect(SensorDriver(rawValue: "hdc1081") == nil)
    }

    /// Each key a descriptor declares is read by it: a list where a value belongs is reported at
    /// that key, and a key no driver declares is unknown to the loader.
    @Test func everyDeclaredOptionIsReadByItsDriver() {
        for driver in SensorDriver.allCases {
            for key in driver.descriptor.optionKeys {
                let wiring = driver == .gpioPulse ? ", line: GPIO17" : ""
                let found = problems("board: simulated\nsensors:\n  - {name: a, driver: \(driver.rawValue)\(wiring), options: {\(key): [1, 2]}}")
                #expect(found.count == 1 && found[0].hasPrefix("sensors[0].options.\(key) (line 3): expected"), "\(driver.rawValue) \(key): \(found)")
            }
        }
        #expect(Set(SensorSection.optionDrivers.map(\.key)) == Set(SensorDriver.allCases.flatMap(\.descriptor.optionKeys)))
        let unknown = problems("board: simulated\nsensors:\n  - {name: a, driver: tmp102, options: {gain: 2}}")
        #expect(unknown.count == 1 && unknown[0].hasPrefix("sensors[0].options.gain (line 3): unknown key 'gain'"), "\(unknown)")
    }

    @Test func i2cDriversHaveAnAddressAndTheOthersNone() {
        for driver in SensorDriver.allCases {
            #expect((driver.i2c != nil) == (driver.defaultAddress != nil), "\(driver.rawValue)")
            if let address = driver.defaultAddress { #expect((0x03...0x77).contains(address), "\(driver.rawValue)") }
        }
    }
}

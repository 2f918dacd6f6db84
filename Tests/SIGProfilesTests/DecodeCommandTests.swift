import Testing
@testable import ProfileCommands

@Suite struct DecodeCommandTests {
    private func run(_ arguments: [String]) throws -> DecodeCommand.Output {
        try DecodeCommand.parse(arguments).render()
    }

    @Test func textOutputWithUnits() throws {
        let output = try run(["0x2A1C", "00 6E:01 00 FF"])
        #expect(output.exitCode == 0)
        #expect(output.standardError == "")
        #expect(output.standardOutput == """
            Temperature Measurement (0x2A1C)
              Temperature: 36.6 °C
              Unit: °C
              Time stamp: not present
              Temperature type: not present

            """)
    }

    @Test func hexSplitAcrossArguments() throws {
        let output = try run(["2a19", "64"])
        #expect(output.standardOutput == "Battery Level (0x2A19)\n  Battery level: 100 %\n")
        #expect(try run(["2A37", "16", "48", "00", "04"]).exitCode == 0)
    }

    @Test func jsonOutput() throws {
        let output = try run(["2A6E", "2909", "--json"])
        #expect(output.exitCode == 0)
        #expect(output.standardOutput == #"{"name":"temperature","uuid":"0x2A6E","value":{"known":true,"temperature_c":23.45}}"# + "\n")
    }

    @Test func descriptorWithCharacteristic() throws {
        let output = try run(["2906", "01 00 10 0E", "--characteristic", "2A21"])
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("Upper bound: 3600 s"))
        let missing = try run(["2906", "01 00 10 0E"])
        #expect(missing.exitCode == 1)
        #expect(missing.standardError.contains("give the characteristic UUID"))
    }

    @Test func malformedExplainsOnStderr() throws {
        let output = try run(["2A37", "08 48 01"])
        #expect(output.exitCode == 1)
        #expect(output.standardOutput == "")
        #expect(output.standardError == "error: malformed Heart Rate Measurement value 084801: flags say energy expended "
            + "present (bit 3) but only 1 byte(s) remain (energy expended needs 2)\n")
        let odd = try run(["2A37", "10 48 00 04 01"])
        #expect(odd.standardError.contains("RR-interval data has an odd number of bytes (3)"))
    }

    @Test func unknownUUIDListsSupported() throws {
        let output = try run(["2A00", "00"])
        #expect(output.exitCode == 1)
        #expect(output.standardError.hasPrefix("error: no decoder for UUID 0x2A00; supported UUIDs:"))
        #expect(output.standardError.contains("0x2A37 Heart Rate Measurement"))
        #expect(output.standardError.contains("0x2904 Characteristic Presentation Format"))
    }

    @Test func badArguments() throws {
        #expect(try run(["zz", "00"]).standardError.contains("is not a UUID"))
        #expect(try run(["2A19", "6"]).standardError.contains("not valid hex"))
        #expect(try run(["2A19", "GG"]).exitCode == 1)
        #expect(try run(["2A39", "02"]).standardError.contains("Control Point Value Not Supported (ATT error 0x80)"))
    }

    @Test func emptyValueIsAllowed() throws {
        let output = try run(["2A28"])
        #expect(output.exitCode == 0)
        #expect(output.standardOutput == "Software Revision String (0x2A28)\n  Software Revision String: \"\"\n")
        #expect(try run(["2A19"]).standardError.contains("Battery Level is 1 byte(s) long but 0 byte(s) were given"))
    }

    @Test func descriptorDescriptions() throws {
        let format = try run(["2904", "0E FE 2F 27 01 00 00"])
        #expect(format.standardOutput == """
            Characteristic Presentation Format (0x2904)
              Format: sint16 (0x0E)
              Exponent: -2
              Unit: 0x272F (degree Celsius)
              Unit name: degree Celsius
              Namespace: Bluetooth SIG (0x01)
              Description: 0x0000

            """)
        let trigger = try run(["290D", "06 34 21", "--characteristic", "2A6E", "--json"])
        #expect(trigger.standardOutput == #"{"name":"es_trigger_setting","uuid":"0x290D","value":{"# +
            #""condition":"while_greater_than","condition_code":6,"operand_c":85}}"# + "\n")
        let measurement = try run(["290C", "00 00 02 3C 00 00 1E 00 00 01 04"])
        #expect(measurement.standardOutput.contains("Sampling function: Arithmetic Mean"))
        #expect(measurement.standardOutput.contains("Measurement period: 60 s"))
        #expect(measurement.standardOutput.contains("Application: Air (0x01)"))
        #expect(measurement.standardOutput.contains("Measurement uncertainty: 2.0 %"))
    }

    @Test func commandName() {
        #expect(DecodeCommand.configuration.commandName == "decode")
    }
}

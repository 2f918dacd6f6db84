import Testing
import BLECore

/// The parameters the daemon asks centrals for, against the Core spec's limits and Apple's rules.
@Suite struct PreferredConnectionParametersTests {
    @Test func theStandardParametersPassTheSpecAndApplesRules() {
        #expect(PreferredConnectionParameters.standard.specViolations.isEmpty)
        #expect(PreferredConnectionParameters.standard.appleRuleViolations.isEmpty)
        #expect(PreferredConnectionParameters.standard.intervalMinUnits == 24)
        #expect(PreferredConnectionParameters.standard.supervisionTimeoutUnits == 500)
    }

    @Test(arguments: [
        // (min ms, max ms, latency, timeout ms, the rule that breaks)
        (20.0, 60.0, 4, 5000, "a multiple of 15 ms"),
        (30.0, 40.0, 4, 5000, "at least the minimum + 15 ms"),
        (30.0, 60.0, 31, 5000, "at most 30"),
        (30.0, 60.0, 0, 420, "2 s … 6 s"),
        (30.0, 300.0, 9, 6000, "at most 2 s"),
        (30.0, 400.0, 4, 6000, "below the supervision timeout"),
    ])
    func parametersIOSRefusesAreNamed(minimum: Double, maximum: Double, latency: Int, timeout: Int, rule: String) {
        let parameters = PreferredConnectionParameters(intervalMin: .milliseconds(minimum), intervalMax: .milliseconds(maximum),
                                                       latency: latency, supervisionTimeout: .milliseconds(timeout))
        #expect(parameters.appleRuleViolations.contains { $0.contains(rule) }, "\(parameters.appleRuleViolations)")
    }

    @Test func parametersACentralMustRejectAreNamed() {
        let tooShort = PreferredConnectionParameters(intervalMin: .milliseconds(30), intervalMax: .milliseconds(60),
                                                     latency: 4, supervisionTimeout: .milliseconds(500))
        #expect(tooShort.specViolations.contains { $0.contains("must exceed (1 + latency)") })
        let odd = PreferredConnectionParameters(intervalMin: .milliseconds(31), intervalMax: .milliseconds(60),
                                                latency: 0, supervisionTimeout: .seconds(5))
        #expect(odd.specViolations == ["intervals are multiples of 1.25 ms"])
    }

    @Test func aLinkAlreadyWithinTheRangeNeedsNoRequest() {
        let standard = PreferredConnectionParameters.standard
        #expect(standard.isSatisfied(interval: 36, latency: 0, supervisionTimeout: 500))
        #expect(!standard.isSatisfied(interval: 12, latency: 0, supervisionTimeout: 500))
        #expect(!standard.isSatisfied(interval: 36, latency: 0, supervisionTimeout: 42))
    }
}

import Glibc
import Testing

/// How many times longer than usual a test may take. 1, unless BLESENSOR_TEST_TIME_SCALE says more:
/// `Tests/Arm64/run-tests.sh` sets it for the arm64 test bundle, which runs several times slower
/// under qemu-aarch64 than on the machine the limits were chosen on. A limit only bounds a hang, so
/// stretching it loses nothing but the time a real hang takes to be reported.
public enum TestTimeScale {
    public static let factor: Int = {
        guard let text = getenv("BLESENSOR_TEST_TIME_SCALE").map({ String(cString: $0) }),
              let factor = Int(text), factor >= 1 else { return 1 }
        return factor
    }()
}

extension Trait where Self == TimeLimitTrait {
    /// `.timeLimit(.minutes(minutes))`, stretched by `TestTimeScale.factor`.
    public static func scaledTimeLimit(minutes: Int) -> Self {
        .timeLimit(.minutes(minutes * TestTimeScale.factor))
    }
}

extension Duration {
    /// A test's own wall-clock bound on an answer that should come (a helper's wait), stretched by
    /// `TestTimeScale.factor` like the time limits. Not for timeouts of the code under test.
    public var scaledForTests: Duration { self * TestTimeScale.factor }
}

#if canImport(Glibc)
import Glibc
#endif
import Testing
import BLECore

@Suite struct DedicatedThreadTests {
    enum Failure: Error, Equatable { case expected }

    @Test func runsOnAThreadOfItsOwnAndReturnsItsValue() async {
        let caller = pthread_self()
        let (value, worker) = await DedicatedThread.run(name: "dedicated-test") { (42, pthread_self()) }
        #expect(value == 42)
        #expect(pthread_equal(caller, worker) == 0)
    }

    @Test func passesTheTypedErrorOn() async {
        await #expect(throws: Failure.expected) {
            try await DedicatedThread.run { () throws(Failure) -> Int in throw .expected }
        }
    }
}

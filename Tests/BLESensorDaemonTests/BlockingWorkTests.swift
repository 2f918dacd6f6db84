#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import BLESensorDaemon

@Suite struct BlockingWorkTests {
    enum Failure: Error, Equatable { case expected }

    @Test func runsOnAThreadOfItsOwnAndReturnsItsValue() async {
        let caller = pthread_self()
        let (value, worker) = await BlockingWork.run { (42, pthread_self()) }
        #expect(value == 42)
        #expect(pthread_equal(caller, worker) == 0)
    }

    @Test func passesTheTypedErrorOn() async {
        await #expect(throws: Failure.expected) {
            try await BlockingWork.run { () throws(Failure) -> Int in throw .expected }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs file-system and socket set-up (bind, chmod, the address file, joining the control
/// server's thread) on a thread of its own and awaits it, so no blocking system call runs on a
/// Swift concurrency thread.
enum BlockingWork {
    static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let job = Job {
                do throws(E) { continuation.resume(returning: .success(try body())) } catch { continuation.resume(returning: .failure(error)) }
            }
            let box = Unmanaged.passRetained(job)
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { raw in
                Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box.toOpaque())
            if created == 0 {
                pthread_detach(thread)
            } else {
                // No thread to be had: do the work here rather than not at all.
                box.takeRetainedValue().run()
            }
        }
        return try result.get()
    }

    private final class Job {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}

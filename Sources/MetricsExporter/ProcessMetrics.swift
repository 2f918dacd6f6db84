#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The standard `process_*` metrics of Prometheus client libraries, from /proc/self: what a
/// dashboard needs to see the daemon's own CPU and memory beside its readings.
public enum ProcessMetrics {
    public struct Reading: Sendable, Equatable {
        public var cpuSeconds: Double
        public var residentBytes: Double
        public var virtualBytes: Double
        public var startTimeSeconds: Double
        public var openDescriptors: Int?

        public init(cpuSeconds: Double, residentBytes: Double, virtualBytes: Double, startTimeSeconds: Double, openDescriptors: Int?) {
            self.cpuSeconds = cpuSeconds
            self.residentBytes = residentBytes
            self.virtualBytes = virtualBytes
            self.startTimeSeconds = startTimeSeconds
            self.openDescriptors = openDescriptors
        }
    }

    static let familyNames = ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                              "process_start_time_seconds", "process_open_fds"]

    static func families(_ reading: Reading) -> [MetricFamily] {
        var families = [
            MetricFamily(name: "process_cpu_seconds_total", kind: .counter, help: "Total user and system CPU time spent in seconds.",
                         samples: [.init(value: reading.cpuSeconds)]),
            MetricFamily(name: "process_resident_memory_bytes", kind: .gauge, help: "Resident memory size in bytes.",
                         samples: [.init(value: reading.residentBytes)]),
            MetricFamily(name: "process_virtual_memory_bytes", kind: .gauge, help: "Virtual memory size in bytes.",
                         samples: [.init(value: reading.virtualBytes)]),
            MetricFamily(name: "process_start_time_seconds", kind: .gauge, help: "Start time of the process since unix epoch in seconds.",
                         samples: [.init(value: reading.startTimeSeconds)]),
        ]
        if let open = reading.openDescriptors {
            families.append(MetricFamily(name: "process_open_fds", kind: .gauge, help: "Number of open file descriptors.",
                                         samples: [.init(value: Double(open))]))
        }
        return families
    }

    /// This process now; nil where /proc/self/stat cannot be read (the scrape then goes on without
    /// them). Blocking file reads: only on the metrics server's own thread. The boot time comes from
    /// the clocks, not /proc/stat, which the packaged unit's ProcSubset=pid hides.
    public static func current() -> Reading? {
        guard let stat = readFile("/proc/self/stat") else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        guard var reading = parse(selfStat: stat, ticksPerSecond: ticks, pageSize: page, bootTime: bootTime()) else { return nil }
        reading.openDescriptors = openDescriptors()
        return reading
    }

    /// Unix time of the boot: now on the wall clock less the time since boot (suspend included,
    /// as in /proc/self/stat's start time).
    static func bootTime() -> Double {
        var wall = timespec()
        var sinceBoot = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        clock_gettime(CLOCK_BOOTTIME, &sinceBoot)
        return Double(wall.tv_sec - sinceBoot.tv_sec) + Double(wall.tv_nsec - sinceBoot.tv_nsec) / 1e9
    }

    /// /proc/self/stat: the command name (field 2) is in parentheses and may hold spaces and
    /// parentheses itself, so fields are counted after the last ')'. Nil for anything malformed.
    static func parse(selfStat text: String, ticksPerSecond: Double, pageSize: Double, bootTime: Double) -> Reading? {
        guard ticksPerSecond > 0, pageSize > 0, let close = text.lastIndex(of: ")") else { return nil }
        // After ')': field 3 (state) is index 0, so field N is index N − 3.
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        func field(_ number: Int) -> Double? {
            let index = number - 3
            guard fields.indices.contains(index) else { return nil }
            return Double(fields[index]).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23), let resident = field(24) else { return nil }
        return Reading(cpuSeconds: (user + system) / ticksPerSecond, residentBytes: resident * pageSize, virtualBytes: virtual,
                       startTimeSeconds: bootTime + start / ticksPerSecond, openDescriptors: nil)
    }

    private static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in name.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        // The directory stream itself holds one descriptor while it is counted.
        return max(0, count - 1)
    }

    /// A small /proc file whole, or nil.
    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The names (`/proc/PID/comm`) of the processes running under the doctor's root: whether
/// bluetoothd or blesensord run, without asking systemd (which a hand-started one bypasses).
struct ProcessTable {
    let names: Set<String>

    init(root: SystemRoot) {
        let pids = (root.list("/proc") ?? []).filter { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }
        names = Set(pids.compactMap { root.readLine("/proc/\($0)/comm") }.filter { !$0.isEmpty })
    }

    func isRunning(_ name: String) -> Bool { names.contains(name) }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

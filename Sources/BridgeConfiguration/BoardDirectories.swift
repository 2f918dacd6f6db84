extension ConfigurationLoader {
    /// Where the daemon looks for board files, in order: `$BLESENSOR_BOARDS_DIR`, the system share
    /// directory, the share directory beside the installed binary, and for development the `boards/`
    /// of the package checkout the binary was built in (found by walking up to `Package.swift`).
    public static func defaultBoardsDirectories(environment: [String: String], executablePath: String,
                                                currentDirectory: String? = ProcessEnvironment.currentDirectory) -> [String] {
        var candidates: [String] = []
        if let custom = environment["BLESENSOR_BOARDS_DIR"], !custom.isEmpty { candidates.append(custom) }
        candidates.append("/usr/share/blesensor/boards")
        // `.build/debug/blesensord` run from the checkout: walking up a relative path stops at
        // `.build` and never reaches the checkout's `boards/`.
        var executable = executablePath
        if !executable.hasPrefix("/"), executable.contains("/"), let currentDirectory {
            executable = joined(currentDirectory, executable)
        }
        let executableDirectory = parentDirectory(executable)
        if let prefix = executableDirectory.flatMap(parentDirectory) {
            candidates.append(joined(prefix, "share/blesensor/boards"))
        }
        var directory = executableDirectory
        // A build tree is a few levels deep (.build/aarch64-unknown-linux-gnu/debug); stop well before /.
        for _ in 0..<12 {
            guard let current = directory else { break }
            if ProcessEnvironment.fileExists(joined(current, "Package.swift")), ProcessEnvironment.fileExists(joined(current, "boards")) {
                candidates.append(joined(current, "boards"))
                break
            }
            directory = parentDirectory(current)
        }
        var unique: [String] = []
        for candidate in candidates where !unique.contains(candidate) { unique.append(candidate) }
        return unique
    }

    /// `/usr/local/bin/blesensord` → `/usr/local/bin`; nil above the root or for a bare name.
    static func parentDirectory(_ path: String) -> String? {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return nil }
        let parent = trimmed[..<slash]
        return parent.isEmpty ? "/" : String(parent)
    }

    static func joined(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : "\(directory)/\(name)"
    }
}

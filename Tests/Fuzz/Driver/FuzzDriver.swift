import FuzzTargets
import Foundation

#if FUZZING
/// The target BLESENSOR_FUZZ_TARGET names (scripts/fuzz.sh sets it).
private let target: @Sendable ([UInt8]) -> Void = {
    let name = ProcessInfo.processInfo.environment["BLESENSOR_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.all[name] else {
        fatalError("BLESENSOR_FUZZ_TARGET must name one of \(FuzzTargets.all.keys.sorted().joined(separator: ", "))")
    }
    return target
}()

/// libFuzzer's driver (compiler-rt), for a program with a main of its own: SwiftPM names the
/// executable's entry point itself, so libFuzzer's main is not the one that runs.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                             _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// libFuzzer's callback, for when its own main is linked in.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@main
struct FuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = runFuzzerDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
        exit(status)
    }
}
#else
/// Without libFuzzer: replays inputs (files, or directories of them) through a target, e.g. a
/// crash file a fuzzing run left: `blesensor-fuzz smp-session crash-1234`.
@main
struct FuzzReplay {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTargets.all[name] else {
            FileHandle.standardError.write(Data("usage: blesensor-fuzz TARGET FILE|DIRECTORY...; targets: \(FuzzTargets.all.keys.sorted().joined(separator: ", "))\n".utf8))
            exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let files = isDirectory.boolValue ? try FileManager.default.contentsOfDirectory(atPath: path).map { path + "/" + $0 } : [path]
            for file in files {
                target([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
                count += 1
            }
        }
        print("\(name): \(count) input(s) replayed")
    }
}
#endif

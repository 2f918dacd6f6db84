import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A directory only this user can enter (mode 0700, from mkdtemp), removed with what it holds:
/// a bond database's copy has every long-term key in it.
struct ScratchDirectory {
    let path: String

    /// In the first of `parents` that takes one; nil when none does (all read-only, say).
    static func make(in parents: [String]) -> ScratchDirectory? {
        for parent in parents {
            let base = parent.hasSuffix("/") ? String(parent.dropLast()) : parent
            var template = Array((base + "/blesensor-bonds-XXXXXX").utf8CString)
            let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
                guard let pointer = mkdtemp(buffer.baseAddress!) else { return nil }
                return String(cString: pointer)
            }
            if let made { return ScratchDirectory(path: made) }
        }
        return nil
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

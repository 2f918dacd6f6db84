/// The closest known name to a misspelt one: within edit distance 2, or one a prefix of the other
/// (`poll` → `poll-interval`), compared case-insensitively. Nil when nothing is close.
func suggestion(for word: String, among candidates: [String]) -> String? {
    let lowered = word.lowercased()
    // Long input is not a typo of a short key; this also bounds the quadratic distance.
    guard !lowered.isEmpty, lowered.count <= 64 else { return nil }
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let target = candidate.lowercased()
        var distance = editDistance(Array(lowered.unicodeScalars), Array(target.unicodeScalars))
        if distance > 2, lowered.count >= 3, target.hasPrefix(lowered) || lowered.hasPrefix(target) {
            distance = 2
        }
        if distance <= 2, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.candidate
}

/// `unknown key 'pol-interval'; did you mean 'poll-interval'?`, or the list of keys when nothing is close.
func unknownKeyMessage(_ key: String, known: [String]) -> String {
    if let close = suggestion(for: key, among: known) {
        return "unknown key '\(abbreviated(key))'; did you mean '\(close)'?"
    }
    return "unknown key '\(abbreviated(key))'; expected one of: \(known.joined(separator: ", "))"
}

/// Levenshtein distance, two rows.
func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

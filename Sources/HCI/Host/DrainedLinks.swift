/// Connections whose ACL queue just emptied. Usually one per call, so the first is stored inline
/// and an array is only allocated when several drain at once (the notification hot path stays
/// allocation-free).
struct DrainedHandles {
    private var first: UInt16? = nil
    private var others: [UInt16] = []

    mutating func append(_ handle: UInt16) {
        if first == nil { first = handle } else { others.append(handle) }
    }

    func forEach(_ body: (UInt16) -> Void) {
        guard let first else { return }
        body(first)
        others.forEach(body)
    }
}

extension Optional {
    /// Moves the value out, leaving `nil`, so the buffer stays uniquely referenced.
    mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}

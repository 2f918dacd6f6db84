/// Links whose ACL queue just emptied. Usually one per call, so the first is stored inline and an
/// array is only allocated when several drain at once (the notification hot path stays
/// allocation-free).
struct DrainedLinks {
    private var first: Link? = nil
    private var others: [Link] = []

    var isEmpty: Bool { first == nil }

    mutating func append(_ link: Link) {
        if first == nil { first = link } else { others.append(link) }
    }

    func forEach(_ body: (Link) -> Void) {
        guard let first else { return }
        body(first)
        others.forEach(body)
    }
}

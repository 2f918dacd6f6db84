import HCI

// Closures the descriptor loop reads again and again, each kept in a class. A function value
// stored in a `Mutex` is re-abstracted by every `withLock` and written back wrapped in two more
// thunks, so every read is slower than the last: the VM benchmark's profile had a third of the
// daemon's CPU in nested reabstraction thunks after a few thousand notifications.

/// The host's ACL credits (`HCITransport.setCreditSource`).
final class CreditSource: Sendable {
    let read: @Sendable () -> ACLCredits

    init(_ read: @escaping @Sendable () -> ACLCredits) {
        self.read = read
    }
}

/// Where a descriptor event loop reports what happens outside its thread (stalls, refused packets).
final class TransportEventHandler: Sendable {
    let call: @Sendable (HCITransportEvent) -> Void

    init(_ call: @escaping @Sendable (HCITransportEvent) -> Void) {
        self.call = call
    }
}

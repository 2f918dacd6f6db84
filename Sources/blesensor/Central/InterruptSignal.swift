import ServiceManager

/// Ctrl-C (and SIGTERM) as an awaitable event, so a command can leave the link cleanly instead of dying.
enum InterruptSignal {
    /// True when a signal came; false when the waiting task was cancelled first. Either way the
    /// signals' default action is back afterwards, so a second Ctrl-C during a stalled exit still ends it.
    static func wait() async -> Bool {
        for await _ in SignalStream.make(restoringDefaultAtEnd: true) { return true }
        return false
    }
}

/// The streams an object's `events()` has handed out, kept inside its locked state, so that every stream
/// gets the events in the order they happened.
///
/// A stream its listener dropped (or whose task was cancelled) is forgotten at the next ``yield(_:)``, not from the
/// stream's `onTermination`: that runs while Swift's concurrency runtime holds the cancelled task's lock, and taking
/// the owner's lock there deadlocks against a ``yield(_:)`` under the owner's lock that resumes the same task.
struct EventSubscribers<Event: Sendable> {
    private var continuations: [AsyncStream<Event>.Continuation] = []

    /// Keeps `continuation`.
    mutating func add(_ continuation: AsyncStream<Event>.Continuation) {
        continuations.append(continuation)
    }

    /// Ends every stream: nothing more will come.
    mutating func finish() {
        for continuation in continuations { continuation.finish() }
        continuations.removeAll()
    }

    /// Hands `events` to every stream, in order, and forgets the streams that ended; call it under the owner's lock.
    mutating func yield(_ events: [Event]) {
        for event in events {
            continuations.removeAll { continuation in
                if case .terminated = continuation.yield(event) { return true }
                return false
            }
        }
    }
}

/// The streams an object's `events()` has handed out, kept inside its locked state, so that every stream
/// gets the events in the order they happened.
struct EventSubscribers<Event: Sendable> {
    private var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextID = 0

    /// Keeps `continuation`; returns the id that ``remove(_:)`` takes.
    mutating func add(_ continuation: AsyncStream<Event>.Continuation) -> Int {
        nextID += 1
        continuations[nextID] = continuation
        return nextID
    }

    /// Forgets a stream that was dropped.
    mutating func remove(_ id: Int) {
        continuations.removeValue(forKey: id)
    }

    /// Hands `events` to every stream, in order; call it under the owner's lock.
    func yield(_ events: [Event]) {
        for event in events { for continuation in continuations.values { continuation.yield(event) } }
    }
}

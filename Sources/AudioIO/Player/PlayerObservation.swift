/// A listener of a ``Playback``'s events added with ``Playback/observe(_:)``: called until the observation is cancelled
/// or released, on the thread where the event happened, not on a task. For what must follow playback within
/// milliseconds whatever the tasks of the process are doing, as the desktop's `Seeked` signal must.
public final class PlayerObservation: Sendable {
    private let remove: @Sendable () -> Void

    init(remove: @escaping @Sendable () -> Void) {
        self.remove = remove
    }

    /// Stops the calls; one under way may finish.
    public func cancel() {
        remove()
    }

    deinit { cancel() }
}

/// The listeners of a player's events, held in its locked state and called once the lock is let go.
struct EventListeners<Event> {
    private var handlers: [(id: Int, handler: @Sendable (Event) -> Void)] = []
    private var nextID = 0

    /// Keeps `handler`; returns the id ``remove(_:)`` takes.
    mutating func add(_ handler: @escaping @Sendable (Event) -> Void) -> Int {
        nextID += 1
        handlers.append((nextID, handler))
        return nextID
    }

    mutating func remove(_ id: Int) {
        handlers.removeAll { $0.id == id }
    }

    /// The handlers, in the order they were added.
    var all: [@Sendable (Event) -> Void] { handlers.map(\.handler) }
}

import Synchronization

extension AudioSession {
    /// Calls `handler` with each event of the session from now on, in the order the events happened, on the
    /// session's one serial notification queue, as `NotificationCenter` observers of `AVAudioSession`'s
    /// notifications are called.
    ///
    /// - Parameter handler: Called once per event, never concurrently with itself or with another
    ///   observer of this session; observers registered earlier are called first. On Ctrl-Z the process
    ///   stops only once every observer has returned from the interruption's event, which a reader of
    ///   ``events()`` cannot count on. A handler that blocks holds up every later event of every observer.
    /// - Returns: The registration: the handler is called until the token is cancelled or released.
    public func addObserver(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken {
        ObservationToken(observers, id: observers.add(handler))
    }

    /// Keeps an ``AudioSession/addObserver(_:)`` handler registered: cancelling it, or releasing it, removes
    /// the handler. A call already under way when it is cancelled may finish; no later one starts.
    ///
    /// **Thread safety**: it may be cancelled and released on any thread, also from its own handler.
    public final class ObservationToken: Sendable {
        private let observers: Observers
        private let id: Int

        init(_ observers: Observers, id: Int) {
            self.observers = observers
            self.id = id
        }

        /// Removes the handler; cancelling again does nothing.
        public func cancel() {
            observers.remove(id)
        }

        deinit { cancel() }
    }

    /// The handlers of ``AudioSession/addObserver(_:)``, in the order they were added.
    final class Observers: Sendable {
        private struct Registry {
            var handlers: [(id: Int, handler: @Sendable (Event) -> Void)] = []
            var nextID = 0
        }

        private let registry = Mutex(Registry())

        func add(_ handler: @escaping @Sendable (Event) -> Void) -> Int {
            registry.withLock { registry in
                registry.nextID += 1
                registry.handlers.append((registry.nextID, handler))
                return registry.nextID
            }
        }

        func remove(_ id: Int) {
            registry.withLock { $0.handlers.removeAll { $0.id == id } }
        }

        /// Calls every handler with `event`, each only while it is still registered; call it on the
        /// notification queue. The handlers run outside the lock, so that they may add and cancel.
        func deliver(_ event: Event) {
            for id in registry.withLock({ $0.handlers.map(\.id) }) {
                registry.withLock { $0.handlers.first { $0.id == id }?.handler }?(event)
            }
        }
    }
}

import FoundationEssentials

extension AudioPlayer {
    /// The player's events, in order, from now on, until the stream is dropped. Each call makes a new
    /// stream; several may be listened to at once.
    public func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            state.withLock { $0.subscribers.add(continuation) }
        }
    }

    /// Calls `block` with ``currentTime`` each time playback crosses a multiple of `interval` seconds, and
    /// when it starts; only while playing. Precision is about 5 ms.
    ///
    /// `block` runs on the engine's event thread: keep it short.
    public func addPeriodicTimeObserver(
        forInterval interval: TimeInterval, using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        let (observer, engine) = state.withLock { ($0.observers.addPeriodic(interval: interval, voice: $0.voice, block: block), $0.engine) }
        // Its event thread sleeps while no voice needs ticks.
        engine?.wakeEventThread()
        return observer
    }

    /// Calls `block` with ``currentTime`` each time playback passes one of `times` (seconds into the file),
    /// also on every loop. Precision is about 5 ms.
    ///
    /// `block` runs on the engine's event thread: keep it short.
    public func addBoundaryTimeObserver(
        forTimes times: [TimeInterval], using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        let (observer, engine) = state.withLock { ($0.observers.addBoundary(times: times, voice: $0.voice, block: block), $0.engine) }
        // Its event thread sleeps while no voice needs ticks.
        engine?.wakeEventThread()
        return observer
    }

    /// Stops calling an observer's block.
    public func removeTimeObserver(_ observer: TimeObserver) {
        state.withLock { $0.observers.remove(observer, voice: $0.voice) }
    }

    /// Calls `handler` with each event from now on, until the observation is cancelled or released: on the thread where
    /// the event happened (the caller's of the method that caused it, else the engine's event thread), after the
    /// player's lock is let go. Events of two threads at once may reach it in either order: read the player's state in
    /// it rather than trust the order.
    package func observe(_ handler: @escaping @Sendable (Event) -> Void) -> PlayerObservation {
        let id = state.withLock { $0.listeners.add(handler) }
        return PlayerObservation { [weak self] in self?.state.withLock { $0.listeners.remove(id) } }
    }

    /// The engine's tick: time observers due, and a loop that started over since the last tick, a time jump.
    func voiceDidTick(_ voice: Voice) {
        TimeObservers.run(withState { state, events in
            let pass = voice.currentItem.load(ordering: .acquiring)
            if state.voice === voice, pass > state.passSeen {
                state.passSeen = pass
                events.append(.timeJumped)
            }
            return state.observers.tick(voice, current: state.voice, isPlaying: state.isPlaying, from: state.time)
        })
    }
}

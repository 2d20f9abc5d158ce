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
        state.withLock { $0.observers.addPeriodic(interval: interval, voice: $0.voice, block: block) }
    }

    /// Calls `block` with ``currentTime`` each time playback passes one of `times` (seconds into the file),
    /// also on every loop. Precision is about 5 ms.
    ///
    /// `block` runs on the engine's event thread: keep it short.
    public func addBoundaryTimeObserver(
        forTimes times: [TimeInterval], using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        state.withLock { $0.observers.addBoundary(times: times, voice: $0.voice, block: block) }
    }

    /// Stops calling an observer's block.
    public func removeTimeObserver(_ observer: TimeObserver) {
        state.withLock { $0.observers.remove(observer, voice: $0.voice) }
    }

    func voiceDidTick(_ voice: Voice) {
        TimeObservers.run(state.withLock { $0.observers.tick(voice, current: $0.voice, isPlaying: $0.isPlaying, from: $0.time) })
    }
}

import FoundationEssentials

/// Time observers, as ``AudioPlayer`` has them (the logic is ``TimeObservers``, which both players hold), over the
/// time of the item playing: ``AudioQueuePlayer/currentTime``, back at 0 when the next item starts.
extension AudioQueuePlayer {
    /// Calls `block` with ``currentTime`` (seconds into the item) each time it crosses a multiple of `interval`
    /// seconds (5 ms at least), when playback starts, and when the next item does; only while playing.
    ///
    /// `block` runs on the engine's event thread, about 5 ms after the crossing: keep it short.
    public func addPeriodicTimeObserver(
        forInterval interval: TimeInterval, using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        let (observer, engine) = state.withLock { ($0.observers.addPeriodic(interval: interval, voice: $0.voice, block: block), $0.engine) }
        // Its event thread sleeps while no voice needs ticks.
        engine?.wakeEventThread()
        return observer
    }

    /// Calls `block` with ``currentTime`` each time it passes one of `times` (seconds into an item), in every item
    /// that lasts that long.
    ///
    /// `block` runs on the engine's event thread, about 5 ms after the crossing: keep it short.
    public func addBoundaryTimeObserver(
        forTimes times: [TimeInterval], using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        let (observer, engine) = state.withLock { ($0.observers.addBoundary(times: times, voice: $0.voice, block: block), $0.engine) }
        // Its event thread sleeps while no voice needs ticks.
        engine?.wakeEventThread()
        return observer
    }

    /// Stops calling the block of `observer`, which an `add…TimeObserver` of this queue returned.
    public func removeTimeObserver(_ observer: TimeObserver) {
        state.withLock { $0.observers.remove(observer, voice: $0.voice) }
    }

    func voiceDidTick(_ voice: Voice) {
        TimeObservers.run(state.withLock { $0.observers.tick(voice, current: $0.voice, isPlaying: $0.isPlaying, from: $0.time) })
    }
}

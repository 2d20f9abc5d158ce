import FoundationEssentials

/// A handle for removing a time observer with ``AudioPlayer/removeTimeObserver(_:)``.
public struct TimeObserver: Hashable, Sendable {
    let id: Int
}

extension AudioPlayer {
    /// The player's events, in order, from now on, until the stream is dropped. Each call makes a new
    /// stream; several may be listened to at once.
    public func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            let id = state.withLock { $0.subscribers.add(continuation) }
            continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.subscribers.remove(id) } }
        }
    }

    /// Calls `block` with ``currentTime`` each time playback crosses a multiple of `interval` seconds, and
    /// when it starts; only while playing. Precision is about 5 ms.
    ///
    /// `block` runs on the engine's event thread: keep it short.
    public func addPeriodicTimeObserver(
        forInterval interval: TimeInterval, using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        addObserver(TimeObserverEntry(kind: .periodic(interval: max(interval, 0.005), lastIndex: nil), callback: block))
    }

    /// Calls `block` with ``currentTime`` each time playback passes one of `times` (seconds into the file),
    /// also on every loop. Precision is about 5 ms.
    ///
    /// `block` runs on the engine's event thread: keep it short.
    public func addBoundaryTimeObserver(
        forTimes times: [TimeInterval], using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        addObserver(TimeObserverEntry(kind: .boundary(times: times.sorted()), callback: block))
    }

    /// Stops calling an observer's block.
    public func removeTimeObserver(_ observer: TimeObserver) {
        state.withLock { state in
            state.observers.removeValue(forKey: observer.id)
            state.voice?.wantsTicks.store(!state.observers.isEmpty, ordering: .relaxed)
        }
    }

    private func addObserver(_ entry: TimeObserverEntry) -> TimeObserver {
        state.withLock { state in
            state.nextObserverID += 1
            state.observers[state.nextObserverID] = entry
            state.voice?.wantsTicks.store(true, ordering: .relaxed)
            return TimeObserver(id: state.nextObserverID)
        }
    }

    func voiceDidTick(_ voice: Voice) {
        let due: [(@Sendable (TimeInterval) -> Void, TimeInterval)] = state.withLock { state in
            guard state.voice === voice, state.isPlaying, voice.hasStarted.load(ordering: .acquiring) else { return [] }
            let now = voice.position
            // The first tick of a voice looks back to where it started, so that a time crossed before it counts.
            let last = state.lastTickPosition ?? state.time
            state.lastTickPosition = now
            var due: [(@Sendable (TimeInterval) -> Void, TimeInterval)] = []
            for (id, entry) in state.observers {
                switch entry.kind {
                case .periodic(let interval, let lastIndex):
                    let index = Int(now / interval)
                    if index != lastIndex {
                        state.observers[id]?.kind = .periodic(interval: interval, lastIndex: index)
                        due.append((entry.callback, now))
                    }
                case .boundary(let times):
                    let crossed = now >= last
                        ? times.filter { last < $0 && $0 <= now }
                        : times.filter { $0 > last || $0 <= now }
                    due += crossed.map { _ in (entry.callback, now) }
                }
            }
            return due
        }
        for (callback, time) in due { callback(time) }
    }
}

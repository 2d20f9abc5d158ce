import FoundationEssentials

extension AudioPlayer {
    /// Everything mutable about a player, guarded by its mutex.
    struct State {
        var deviceName: String?
        var delegate = WeakDelegate()
        var status = Status.unknown
        var isPlaying = false
        var controls = PlaybackControls()
        /// The position while no voice is prepared (and where the next one starts), in seconds.
        var time: TimeInterval = 0
        var engine: StreamEngine?
        var voice: Voice?
        var decoder: PlaybackDecoder?
        var isInMix = false
        var decodeFailed = false
        var observers = TimeObservers()
        /// Passes of a loop heard to their end: a new voice (after a seek or a lost device) goes on counting from
        /// there instead of playing ``AudioPlayer/numberOfLoops`` loops again.
        var passesHeard = 0
        /// Whether ``AudioPlayer/Event/started`` was sent since the last stop or finish: a seek, a resume or a new
        /// voice at the position heard goes on playing, it does not start again.
        var startWasReported = false
        /// Seconds of silence skipped by voices let go since playback last started afresh.
        var skippedBefore: TimeInterval = 0
        var subscribers = EventSubscribers<Event>()

        /// Seconds into the file of what is heard now: the position of the last frame mixed, less what the
        /// device still holds queued in front of it (a sound server may hold a second or more).
        var currentTime: TimeInterval {
            guard let voice, let engine, voice.hasStarted.load(ordering: .acquiring) else { return time }
            let mixed = voice.position
            guard isPlaying else { return mixed }
            let queued = Double(engine.queuedFrames.load(ordering: .relaxed)) / engine.sampleRate * Double(controls.effectiveRate)
            return max(mixed - queued, min(time, mixed))
        }

        /// Seconds of the file skipped as silence so far, as heard.
        var skippedSilence: TimeInterval {
            skippedBefore + (voice?.skipped ?? 0)
        }

        /// Lets go of the voice and its decoder; the engine drops the voice at its next period.
        mutating func release() {
            skippedBefore = skippedSilence
            if let voice, voice.hasStarted.load(ordering: .acquiring) { passesHeard = voice.currentItem.load(ordering: .acquiring) }
            if isInMix {
                voice?.removalRequested.store(true, ordering: .releasing)
                engine?.wake()
            }
            decoder?.stop()
            voice = nil
            decoder = nil
            isInMix = false
            isPlaying = false
            observers.voiceReleased()
        }
    }

    /// Runs `body` under the lock and hands the events it produced to the subscribers there, so that every
    /// stream sees events in the order they happened; the delegate is called after the lock is released, so
    /// that it may call back into the player.
    func withState<T>(_ body: (inout State, inout [Event]) -> T) -> T {
        var events: [Event] = []
        let (result, delegate) = state.withLock { state in
            let result = body(&state, &events)
            state.subscribers.yield(events)
            return (result, state.delegate.value)
        }
        for event in events {
            switch event {
            case .finishedPlaying(let successfully): delegate?.audioPlayerDidFinishPlaying(self, successfully: successfully)
            case .decodeError(let error): delegate?.audioPlayerDecodeErrorDidOccur(self, error: error)
            case .statusChanged, .started: break
            }
        }
        return result
    }
}

import FoundationEssentials

extension AudioPlayer {
    /// Everything mutable about a player, guarded by its mutex.
    struct State {
        var deviceName: String?
        /// The session it joins (tests give one of their own).
        var session = AudioSession.shared
        var delegate = WeakDelegate()
        var status = Status.unknown
        var isPlaying = false
        var controls = PlaybackControls()
        /// ``AudioPlayer/forwardPlaybackStartTime`` and ``AudioPlayer/forwardPlaybackEndTime``.
        var range = PlaybackRange()
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
        /// Playing was asked for a device time still ahead (``AudioPlayer/play(atTime:)``), and the voice has not started.
        var waitsForScheduledStart = false
        /// The pass of a loop the voice was in at the last tick: one further on is a loop starting over, a time jump.
        var passSeen = 0
        var seeks = SeekCompletions()
        var subscribers = EventSubscribers<Event>()
        /// For an address: whether its header has downloaded (or failed to).
        var load = RemoteLoad.loading
        /// The reader of the voice's file, for an address: whether the decoder waits for bytes.
        var reader: RemoteReader?
        /// For an address: whether the output waits for the download.
        var buffering = RemoteBuffering()
        var listeners = EventListeners<Event>()
        /// What ``AudioPlayer/renderedAudio()`` streams, once asked for.
        var tap: PlayerTap?

        /// For an address: whether the decoder waits for bytes.
        var decoderWaits: Bool { reader?.isWaiting.load(ordering: .relaxed) ?? false }

        /// Seconds into the file of what is heard now: the position of the last frame mixed, less what the
        /// device still holds queued in front of it (a sound server may hold a second or more).
        var currentTime: TimeInterval {
            voice?.heardPosition(on: engine, isPlaying: isPlaying, rate: controls.effectiveRate, startedAt: time) ?? time
        }

        var timeControlStatus: TimeControlStatus {
            !isPlaying ? .paused : waitsForScheduledStart ? .waitingToPlayAtSpecifiedRate(.scheduledStart) : .playing
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
            // A decoder waiting for bytes no one will hear ends now.
            reader?.cancel()
            reader = nil
            buffering.reset()
            voice = nil
            decoder = nil
            isInMix = false
            isPlaying = false
            waitsForScheduledStart = false
            observers.voiceReleased()
        }
    }

    /// Runs `body` under the lock and hands the events it produced to the subscribers there, so that every
    /// stream sees events in the order they happened: the status, then the changes of ``timeControlStatus`` and
    /// ``rate`` that `body` made, then what it reports happened. The delegate, the listeners and seeks' completion handlers are called after
    /// the lock is released, so that they may call back into the player.
    func withState<T>(_ body: (inout State, inout [Event]) -> T) -> T {
        var events: [Event] = []
        let (result, delegate, listeners, completions) = state.withLock { state in
            let (timeControlStatus, rate) = (state.timeControlStatus, state.controls.rate)
            let result = body(&state, &events)
            var changes: [Event] = []
            if state.timeControlStatus != timeControlStatus { changes.append(.timeControlStatusChanged(state.timeControlStatus)) }
            if state.controls.rate != rate { changes.append(.rateChanged(state.controls.rate)) }
            let statuses = events.filter { if case .statusChanged = $0 { true } else { false } }
            events = statuses + changes + events.filter { if case .statusChanged = $0 { false } else { true } }
            state.subscribers.yield(events)
            return (result, state.delegate.value, events.isEmpty ? [] : state.listeners.all, state.seeks.takeDue())
        }
        for event in events {
            switch event {
            case .finishedPlaying(let successfully): delegate?.audioPlayerDidFinishPlaying(self, successfully: successfully)
            case .decodeError(let error): delegate?.audioPlayerDecodeErrorDidOccur(self, error: error)
            case .timeControlStatusChanged(let status): delegate?.audioPlayerTimeControlStatusDidChange(self, to: status)
            case .rateChanged(let rate): delegate?.audioPlayerRateDidChange(self, to: rate)
            case .timeJumped: delegate?.audioPlayerTimeDidJump(self)
            case .statusChanged, .started, .playbackStalled, .playbackResumed: break
            }
            for listener in listeners { listener(event) }
        }
        for completion in completions { completion.handler(completion.finished) }
        return result
    }
}

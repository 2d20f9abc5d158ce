import FoundationEssentials

extension AudioPlayer {
    /// Opens the file and the device and fills the buffer, so that ``play()`` starts at once. For an address, first
    /// waits for its header to download; its buffer fills while it plays.
    ///
    /// - Returns: Whether the player is ready; on false, ``status`` holds the reason.
    @discardableResult
    public func prepareToPlay() -> Bool {
        awaitLoad()
        return withState { state, events in prepare(&state, &events) }
    }

    /// Starts or resumes playback with the next device period.
    ///
    /// - Returns: Whether playback started; on false, ``status`` holds the reason.
    @discardableResult
    public func play() -> Bool {
        awaitLoad()
        return joinSession(withState { state, events in start(&state, &events, at: nil) })
    }

    /// Starts playback when the device clock reaches `time` (seconds on ``deviceCurrentTime``'s clock).
    ///
    /// Players on one device given the same `time` start on the same frame. A time already passed when the
    /// player reaches the render thread is honoured by starting as far into the file as it would be by now,
    /// so such players stay aligned sample for sample. A paused player resumes at once.
    ///
    /// - Returns: Whether playback is scheduled; on false, ``status`` holds the reason.
    @discardableResult
    public func play(atTime time: TimeInterval) -> Bool {
        awaitLoad()
        return joinSession(withState { state, events in start(&state, &events, at: time) })
    }

    /// Pauses, keeping the position and the prepared state; ``play()`` resumes.
    public func pause() {
        withState { state, events in _ = pause(&state, &events) }
    }

    /// Pauses the voice if it plays; returns whether it did.
    func pause(_ state: inout State, _ events: inout [Event]) -> Bool {
        guard state.isPlaying, let voice = state.voice else { return false }
        if state.engine?.queuesLong == true {
            // The device holds more than a pause may take to be heard: the voice goes (the engine drops what is
            // queued of it) and a new one waits at the position heard.
            move(&state, &events, to: state.currentTime, playing: false)
            return true
        }
        voice.isPaused.store(true, ordering: .releasing)
        // What is queued on the device plays out: the pause is heard where the mix stopped.
        state.isPlaying = false
        state.time = state.currentTime
        // A seek waiting to be heard is where it was asked for, and ready: complete.
        state.seeks.end(finished: true)
        return true
    }

    /// After a change to what the voice sounds like (rate, volume) on a device that holds much queued: goes on from
    /// the position heard (`heard`, when the change already moved ``State/currentTime``) with a new voice, so that the
    /// change is heard now rather than after the queue.
    func restartIfQueuedLong(_ state: inout State, _ events: inout [Event], from heard: TimeInterval? = nil) {
        guard state.isPlaying, state.engine?.queuesLong == true else { return }
        move(&state, &events, to: heard ?? state.currentTime, playing: true)
    }

    /// Stops and releases what ``prepareToPlay()`` set up; ``currentTime`` keeps its value, and the next
    /// ``play()`` plays ``numberOfLoops`` loops afresh.
    public func stop() {
        withState { state, _ in
            state.time = state.currentTime
            state.release()
            state.passesHeard = 0
            state.startWasReported = false
            state.seeks.end(finished: false)
        }
    }

    /// Seconds into the file of what is heard now. Setting it seeks to that exact frame (clamped to
    /// 0…``duration``), playing on if it was playing.
    public var currentTime: TimeInterval {
        get { state.withLock { $0.currentTime } }
        set { seek(to: newValue) }
    }

    /// Moves to `time` seconds, playing on if it was playing; an ``Event/timeJumped`` tells it.
    ///
    /// Every seek lands on the exact frame — libsndfile positions WAV, CAF, FLAC and Opus sample-exactly —
    /// so it is always within any tolerance given; the tolerances are accepted for code written against
    /// `AVPlayer.seek(to:toleranceBefore:toleranceAfter:)`. A seek still waiting to be heard is superseded (see
    /// ``seek(to:toleranceBefore:toleranceAfter:completionHandler:)``).
    public func seek(to time: TimeInterval, toleranceBefore: TimeInterval = 0, toleranceAfter: TimeInterval = 0) {
        seek(to: time, completion: nil)
    }

    /// Moves to `time` seconds as ``seek(to:toleranceBefore:toleranceAfter:)`` does, and calls `completionHandler` once
    /// the seek is complete, as `AVPlayer.seek(to:completionHandler:)`.
    ///
    /// - Parameters:
    ///   - time: Seconds into the file, clamped to 0…``duration``.
    ///   - toleranceBefore: Accepted and met: every seek lands on the exact frame.
    ///   - toleranceAfter: Accepted and met, as `toleranceBefore`.
    ///   - completionHandler: Called once, after the player's lock is let go: with true when the new position is heard
    ///     (its first frame played, or at once while paused), with false when the seek was superseded by another,
    ///     cancelled by ``cancelPendingSeeks()``, or cut short by ``stop()`` or a lost device. The position has moved
    ///     either way: the file is positioned before `seek` returns, and what a seek waits for is its first frame being
    ///     played. Called on the engine's event thread, or on the thread that ended the seek.
    public func seek(
        to time: TimeInterval, toleranceBefore: TimeInterval = 0, toleranceAfter: TimeInterval = 0,
        completionHandler: @escaping @Sendable (_ finished: Bool) -> Void
    ) {
        seek(to: time, completion: completionHandler)
    }

    /// Ends the seek still waiting to be heard, if any: its completion handler is called with false, as
    /// `AVPlayer.cancelPendingSeeks()` does. The position stays where the seek put it.
    public func cancelPendingSeeks() {
        withState { state, _ in state.seeks.end(finished: false) }
    }

    private func seek(to time: TimeInterval, completion: SeekCompletions.Handler?) {
        withState { state, events in
            state.seeks.end(finished: false)
            move(&state, &events, to: time, playing: state.isPlaying)
            events.append(.timeJumped)
            state.seeks.begin(completion, heardFrom: state.isPlaying ? state.voice : nil)
        }
    }

    /// Lets the voice go and makes a new one at `time` (clamped to the file): playing when `playing`, else prepared
    /// if one was. A seek waiting to be heard waits for the new voice.
    func move(_ state: inout State, _ events: inout [Event], to time: TimeInterval, playing: Bool) {
        let wasPrepared = state.voice != nil
        state.release()
        state.time = min(max(time, 0), duration)
        if playing {
            _ = start(&state, &events, at: nil)
        } else if wasPrepared {
            _ = prepare(&state, &events)
        }
        state.seeks.moved(to: state.isPlaying ? state.voice : nil)
    }

    private func prepare(_ state: inout State, _ events: inout [Event]) -> Bool {
        if state.voice != nil { return true }
        // An address that failed to download has its reason in the status already.
        if state.load == .failed { return false }
        // Playing from the start, or from where stop() left it: what was skipped before counts no more.
        if !state.startWasReported { state.skippedBefore = 0 }
        do {
            let session = AudioSession.shared
            let engine = try StreamEngine.engine(
                for: state.deviceName ?? session.outputForNewPlayers, direction: .playback, request: session.playbackRequest)
            let file = try remote.map { asset throws(AudioFileError) in try AudioFile(remote: asset) } ?? AudioFile(forReading: source)
            let loops = self.loops
            let passesHeard = state.passesHeard
            let (voice, decoder) = try PlaybackPipeline.start(
                file: file, item: passesHeard, range: state.range, on: engine, owner: self, startTime: state.time,
                controls: state.controls, observers: state.observers, tap: state.tap,
                onError: { [weak self] error in self?.decoderFailed(error) }
            ) { passes in
                let loopCount = loops.load(ordering: .relaxed)
                return loopCount < 0 || passesHeard + passes <= loopCount ? .rewind : .end
            }
            state.engine = engine
            state.voice = voice
            state.decoder = decoder
            state.reader = file.remote
            state.decodeFailed = false
            state.passSeen = passesHeard
            state.status.change(to: .readyToPlay, reporting: Event.statusChanged, in: &events)
            return true
        } catch {
            state.status.change(to: .failure(error, path: source.path), reporting: Event.statusChanged, in: &events)
            return false
        }
    }

    func start(_ state: inout State, _ events: inout [Event], at time: TimeInterval?) -> Bool {
        guard !state.isPlaying else { return true }
        guard time?.isFinite ?? true, abs(time ?? 0) < 1e9 else { return false }
        guard prepare(&state, &events), let voice = state.voice, let engine = state.engine else { return false }
        if !voice.hasStarted.load(ordering: .acquiring) {
            // The start frame before the pause flag, so that no period sees the old start unpaused.
            voice.startFrame.store(time.map { engine.frame(at: $0) } ?? Voice.immediately, ordering: .releasing)
            state.waitsForScheduledStart = time.map { $0 > engine.deviceCurrentTime } ?? false
        }
        voice.isPaused.store(false, ordering: .releasing)
        holdForDownload(&state, voice: voice, engine: engine)
        if state.isInMix {
            engine.wake()
        } else {
            do {
                try engine.add(voice)
            } catch {
                state.release()
                state.seeks.end(finished: false)
                state.status.change(to: .failed(.device(error)), reporting: Event.statusChanged, in: &events)
                return false
            }
            state.isInMix = true
        }
        state.isPlaying = true
        return true
    }

    private func decoderFailed(_ error: AudioFileError) {
        withState { state, events in
            state.decodeFailed = true
            events.append(.decodeError(error))
        }
    }
}

extension AudioPlayer: PlayingParticipant {
    func pauseIfPlaying() -> Bool {
        withState { state, events in pause(&state, &events) }
    }

    var outputInUse: String? { state.withLock { $0.engine.flatMap { $0.isOffline ? nil : $0.deviceName } } }

    var deviceFoundBusy: (name: String, isInput: Bool)? {
        guard case .failed(.device(let error)) = status else { return nil }
        return Self.busyDevice(error, isInput: false)
    }

    var session: AudioSession {
        get { state.withLock { $0.session } }
        set { state.withLock { $0.session = newValue } }
    }
}

extension AudioPlayer: VoiceOwner {
    /// A player's items are the passes of a loop, counted when the voice is let go (`State.passesHeard`).
    func voiceDidStartItem(_ voice: Voice) {}

    func voiceDidStart(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            state.waitsForScheduledStart = false
            state.seeks.voiceStarted(voice)
            guard !state.startWasReported else { return }
            state.startWasReported = true
            events.append(.started)
        }
    }

    func voiceDidFinish(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            let successfully = !state.decodeFailed && !voice.decodeFailed.load(ordering: .acquiring)
            state.controls.voiceEnded(voice, fileChannels: numberOfChannels)
            state.release()
            state.time = state.range.start
            state.passesHeard = 0
            state.startWasReported = false
            state.seeks.end(finished: true)
            events.append(.finishedPlaying(successfully: successfully))
        }
    }

    func voiceDidLoseDevice(_ voice: Voice, error: AudioDeviceError) {
        withState { state, events in
            guard state.voice === voice else { return }
            state.time = state.currentTime
            state.isInMix = false
            state.release()
            state.engine = nil
            state.seeks.end(finished: false)
            // The session's policy: a vanished output pauses playback where it was, and nothing moves to
            // another device; `play()` opens the device again when it is back.
            if error.reason == .disconnected { return }
            state.status.change(to: .failed(.device(error)), reporting: Event.statusChanged, in: &events)
            events.append(.finishedPlaying(successfully: false))
        }
    }
}

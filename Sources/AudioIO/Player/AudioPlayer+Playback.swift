import FoundationEssentials

extension AudioPlayer {
    /// Opens the file and the device and fills the buffer, so that ``play()`` starts at once. For an address, first
    /// waits for its header to download; its buffer fills while it plays.
    ///
    /// - Returns: Whether the player is ready; on false, ``BasePlayer/status`` holds the reason.
    @discardableResult
    public func prepareToPlay() -> Bool {
        awaitLoad()
        return withState { state, events in prepareFile(&state, &events) }
    }

    /// Starts playback when the device clock reaches `time` (seconds on ``deviceCurrentTime``'s clock).
    ///
    /// Players on one device given the same `time` start on the same frame. A time already passed when the
    /// player reaches the render thread is honoured by starting as far into the file as it would be by now,
    /// so such players stay aligned sample for sample; so is one whose decoder falls behind (a busy machine): it drops
    /// what it could not play in time rather than play on late. A paused player resumes at once.
    ///
    /// - Returns: Whether playback is scheduled; on false, ``BasePlayer/status`` holds the reason.
    @discardableResult
    public func play(atTime time: TimeInterval) -> Bool {
        awaitLoad()
        return joinSession(withState { state, events in start(&state, &events, at: time) })
    }

    /// Stops and releases what ``prepareToPlay()`` set up; ``BasePlayer/currentTime`` keeps its value, and the next
    /// ``play()`` plays ``numberOfLoops`` loops afresh.
    public func stop() {
        withState { state, _ in
            state.time = state.currentTime
            release(&state)
            state.file.passesHeard = 0
            state.file.startWasReported = false
            state.seeks.end(finished: false)
        }
    }

    /// Makes a voice for the file at ``State/time``, primed and not yet in the mix, unless one is.
    func prepareFile(_ state: inout State, _ events: inout [Event]) -> Bool {
        if state.voice != nil { return true }
        // An address that failed to download has its reason in the status already.
        if state.file.load == .failed { return false }
        // Playing from the start, or from where stop() left it: what was skipped before counts no more.
        if !state.file.startWasReported { state.skippedBefore = 0 }
        do {
            let session = AudioSession.shared
            let engine = try StreamEngine.engine(
                for: state.deviceName ?? session.outputForNewPlayers, direction: .playback, request: session.playbackRequest)
            let file = try remote.map { asset throws(AudioFileError) in try AudioFile(remote: asset, timeline: item.liveTimeline) } ?? AudioFile(forReading: source)
            let loops = self.loops
            let passesHeard = state.file.passesHeard
            let (voice, decoder) = try PlaybackPipeline.start(
                file: file, item: passesHeard, range: state.file.range, on: engine, owner: self, startTime: state.time,
                controls: state.controls, observers: state.observers, tap: state.tap,
                onError: { [weak self] error in self?.decoderFailed(error) },
                onTimedMetadata: { [weak self] item, metadata in self?.decoderRead(metadata, item: item) }
            ) { passes in
                let loopCount = loops.load(ordering: .relaxed)
                return loopCount < 0 || passesHeard + passes <= loopCount ? .rewind : .end
            }
            state.engine = engine
            state.voice = voice
            state.decoder = decoder
            if let address = OpenedAddress(file) {
                state.readers[0] = address
                state.reading = 0
            }
            state.file.decodeFailed = false
            state.file.passSeen = passesHeard
            state.status.change(to: .readyToPlay, reporting: Event.statusChanged, in: &events)
            return true
        } catch {
            state.status.change(to: .failure(error, path: source.path), reporting: Event.statusChanged, in: &events)
            return false
        }
    }

    private func decoderFailed(_ error: AudioFileError) {
        withState { state, events in
            state.file.decodeFailed = true
            events.append(.decodeError(error))
        }
    }

    /// The voice's first frame was mixed: a seek waiting for it is heard, and playing from the start has started.
    func fileVoiceDidStart(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            state.waitsForScheduledStart = false
            state.seeks.voiceStarted(voice)
            guard !state.file.startWasReported else { return }
            state.file.startWasReported = true
            events.append(.started)
        }
    }

    /// The last loop played to its end: the position goes back to the range's start.
    func fileVoiceDidFinish(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            let successfully = !state.file.decodeFailed && !voice.decodeFailed.load(ordering: .acquiring)
            state.controls.voiceEnded(voice, fileChannels: meteredChannels(in: state))
            release(&state)
            state.time = state.file.range.start
            state.file.passesHeard = 0
            state.file.startWasReported = false
            state.seeks.end(finished: true)
            events.append(.finishedPlaying(successfully: successfully))
        }
    }
}

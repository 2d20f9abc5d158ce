import Dispatch
import FoundationEssentials
import Glibc

/// Whether an address's header has downloaded.
enum RemoteLoad: Equatable {
    case loading
    case loaded
    case failed
}

/// Why a player of an address holds its output back.
enum RemoteWait: Equatable {
    /// A new voice (a start, a seek) waits for its first audio.
    case starting
    /// The buffer ran empty while playing.
    case stalled
}

extension AudioPlayer {
    /// Seconds of audio downloaded ahead of where the decoder reads, at which playback is likely to keep up: a stall
    /// ends with at least this much buffered (or the whole file).
    static let likelyToKeepUpSeconds = 2.0
    /// How often a player of an address looks at its buffer.
    static let bufferingInterval = 0.02

    /// The stretches of the file downloaded, in seconds, in order: for an address, its downloaded byte ranges in
    /// proportion to the file's length (exact for PCM, close for the others); for a file or data, the whole of it.
    /// Empty until an address's header is here.
    public var loadedTimeRanges: [Range<TimeInterval>] {
        let duration = self.duration
        guard let remote else { return duration > 0 ? [0..<duration] : [] }
        let progress = remote.progress
        guard duration > 0, let length = progress.length, length > 0 else { return [] }
        return progress.loaded.ranges.map { bytes in
            Double(bytes.lowerBound) / Double(length) * duration..<min(Double(bytes.upperBound) / Double(length) * duration, duration)
        }
    }

    /// Whether playback waits for the download: an address's header is not here yet, or the buffer ran empty (a start
    /// or a seek waiting for its first audio, or a stall). Always false for a file.
    public var isPlaybackBufferEmpty: Bool {
        guard remote != nil else { return false }
        return state.withLock { $0.load == .loading || $0.wait != nil || Self.runsDry($0) }
    }

    /// Whether the voice's ring holds less than a period (and 50 ms) while the decoder waits for bytes.
    private static func runsDry(_ state: State) -> Bool {
        guard let voice = state.voice, let engine = state.engine, state.reader?.isWaiting.load(ordering: .relaxed) == true else { return false }
        let lowWater = max(engine.configuration.periodFrames, Int(engine.sampleRate * 0.05))
        return voice.audio.availableToRead / voice.channelCount < lowWater
    }

    /// Whether playback is likely to go on without stalling: for an address, the whole file is downloaded, or at least
    /// 2 seconds of it from where playback reads; always true for a file.
    public var isPlaybackLikelyToKeepUp: Bool {
        guard let remote else { return true }
        return isLikelyToKeepUp(remote.progress)
    }

    private func isLikelyToKeepUp(_ progress: RemoteAsset.Progress) -> Bool {
        guard progress.failure == nil else { return false }
        if progress.isComplete { return true }
        let duration = self.duration
        guard let length = progress.length, length > 0, duration > 0 else { return false }
        return Double(progress.bytesAhead) / Double(length) * duration >= Self.likelyToKeepUpSeconds
    }

    /// Reads the header of `item`, an address, on a thread of its own, makes the status ready or failed, then looks at
    /// the buffer every ``bufferingInterval`` while the player lives and plays that item.
    func startLoading(_ item: PlayerItem) {
        RealtimeThread.start(name: "audio-remote", realtime: false) { [weak self, weak item] in
            // Neither the asset nor the player is held here: they go with the player, or with its item.
            guard let loaded = self.flatMap({ player in item.map { player.load($0) } }), loaded else { return }
            // Held weakly between looks: the player may go at any time, and the thread with it.
            while true {
                usleep(useconds_t(Self.bufferingInterval * 1_000_000))
                guard let player = self, let item, player.item === item else { return }
                player.lookAtBuffer()
            }
        }
    }

    /// Opens `item`'s header and, while it is still the player's, makes the status ready or failed; returns whether it
    /// is ready.
    private func load(_ item: PlayerItem) -> Bool {
        guard let remote = item.remote else { return false }
        defer { item.loadEnded.signal() }
        let opened = Result { () throws(AudioFileError) in try AudioFile(remote: remote) }
        if case .success(let file) = opened { item.facts.withLock { $0 = (file.duration, file.channelCount) } }
        return withState { state, events in
            guard self.item === item else { return false }
            switch opened {
            case .success(let file) where file.frameCount > 0:
                state.load = .loaded
                state.status.change(to: .readyToPlay, reporting: Event.statusChanged, in: &events)
            case .success:
                state.load = .failed
                state.status.change(to: .failed(.file(AudioFileError(path: remote.name, reason: .noAudio))), reporting: Event.statusChanged, in: &events)
            case .failure(let error):
                state.load = .failed
                state.status.change(to: .failed(.file(error)), reporting: Event.statusChanged, in: &events)
            }
            return state.load == .loaded
        }
    }

    /// For an address: waits until its header has downloaded or failed (``status`` says which). A file has it.
    func awaitLoad() {
        let item = self.item
        guard item.remote != nil else { return }
        item.loadEnded.wait()
        item.loadEnded.signal()
    }

    /// After a new voice was started or resumed: holds its output back while an address's decoder has nothing for it
    /// yet, on a device with a clock (one without waits for the decoder anyway). Under the lock.
    func holdForDownload(_ state: inout State, voice: Voice, engine: StreamEngine) {
        guard remote != nil else { return }
        if state.wait == nil, !voice.isPrimed.load(ordering: .acquiring) { state.wait = .starting }
        if state.wait != nil, !engine.isUnclocked { voice.isPaused.store(true, ordering: .releasing) }
    }

    /// Stalls playback on a device with a clock when the buffer runs empty while the decoder waits for bytes, and
    /// resumes it once enough is buffered (a new voice once it has its first audio).
    private func lookAtBuffer() {
        guard let remote else { return }
        let progress = remote.progress
        let likely = isLikelyToKeepUp(progress)
        withState { state, events in
            guard let voice = state.voice, let engine = state.engine, state.isInMix else { return }
            let waiting = state.reader?.isWaiting.load(ordering: .relaxed) ?? false
            let channels = voice.channelCount
            let buffered = voice.audio.availableToRead / channels
            switch state.wait {
            case nil:
                // A device without a clock waits for the decoder: its output never runs dry, and nothing stalls.
                guard !engine.isUnclocked, state.isPlaying, Self.runsDry(state), voice.hasStarted.load(ordering: .acquiring),
                      !voice.hasFinished.load(ordering: .acquiring)
                else { return }
                state.wait = .stalled
                if !engine.isUnclocked { voice.isPaused.store(true, ordering: .releasing) }
                events.append(.playbackStalled)
            case .starting:
                guard voice.isPrimed.load(ordering: .acquiring) else { return }
                resume(&state, voice: voice, engine: engine)
            case .stalled:
                let refilled = buffered >= voice.audio.capacity / channels / 4 || !waiting && progress.isComplete
                guard refilled, likely || !waiting else { return }
                resume(&state, voice: voice, engine: engine)
                events.append(.playbackResumed)
            }
        }
    }

    private func resume(_ state: inout State, voice: Voice, engine: StreamEngine) {
        state.wait = nil
        guard state.isPlaying else { return }
        voice.isPaused.store(false, ordering: .releasing)
        engine.wake()
    }
}

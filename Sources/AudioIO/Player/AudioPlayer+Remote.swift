import Dispatch
import FoundationEssentials
import SystemEdge

/// Whether an address's header has downloaded.
enum RemoteLoad: Equatable {
    case loading
    case loaded
    case failed
}

extension AudioPlayer {
    /// The stretches of the file downloaded, in seconds, in order: for an address, its downloaded byte ranges in
    /// proportion to the file's length (exact for PCM, close for the others); for a file or data, the whole of it.
    /// Empty until an address's header is here.
    public var loadedTimeRanges: [Range<TimeInterval>] {
        let duration = self.duration
        guard let remote else { return duration > 0 ? [0..<duration] : [] }
        return remote.progress.loadedTimeRanges(duration: duration)
    }

    /// Whether playback waits for the download: an address's header is not here yet, or the buffer ran empty (a start
    /// or a seek waiting for its first audio, or a stall). Always false for a file.
    public var isPlaybackBufferEmpty: Bool {
        guard remote != nil else { return false }
        return state.withLock { state in
            state.load == .loading || state.buffering.isBufferEmpty(state.voice, on: state.engine, decoderWaits: state.decoderWaits)
        }
    }

    /// Whether playback is likely to go on without stalling: for an address, the whole file is downloaded, or at least
    /// 2 seconds of it from where playback reads; always true for a file.
    public var isPlaybackLikelyToKeepUp: Bool {
        guard let remote else { return true }
        return remote.progress.isLikelyToKeepUp(duration: duration)
    }

    /// Reads the header of `item`, an address, on a thread of its own, makes the status ready or failed, then looks at
    /// the buffer every ``RemoteBuffering/interval`` while the player lives and plays that item.
    func startLoading(_ item: PlayerItem) {
        SystemThread.detach(name: "audio-remote", realtime: false) { [weak self, weak item] in
            // Neither the asset nor the player is held here: they go with the player, or with its item.
            guard let loaded = self.flatMap({ player in item.map { player.load($0) } }), loaded else { return }
            // Held weakly between looks: the player may go at any time, and the thread with it.
            RemoteBuffering.keepLooking { [weak self, weak item] in
                guard let self, let item, self.item === item else { return false }
                lookAtBuffer()
                return true
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
    /// yet (see ``RemoteBuffering/hold(_:on:)``). Under the lock.
    func holdForDownload(_ state: inout State, voice: Voice, engine: StreamEngine) {
        guard remote != nil else { return }
        state.buffering.hold(voice, on: engine)
    }

    /// Stalls playback when the buffer runs empty while the decoder waits for bytes, and resumes it once enough is
    /// buffered (see ``RemoteBuffering/look(at:on:isPlaying:decoderWaits:download:)``).
    private func lookAtBuffer() {
        guard let remote else { return }
        let download = (progress: remote.progress, duration: duration)
        withState { state, events in
            guard let voice = state.voice, let engine = state.engine, state.isInMix else { return }
            switch state.buffering.look(
                at: voice, on: engine, isPlaying: state.isPlaying, decoderWaits: state.decoderWaits, download: download) {
            case .stalled: events.append(.playbackStalled)
            case .resumed: events.append(.playbackResumed)
            case nil: break
            }
        }
    }
}

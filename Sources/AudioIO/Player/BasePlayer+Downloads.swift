import FoundationEssentials
import SystemEdge

/// What plays from an `http` or `https` address: what is downloaded of it, as `AVPlayerItem` tells it, and the stall
/// and resume of the output, decided by ``RemoteBuffering``.
extension BasePlayer {
    /// The stretches downloaded of what plays (a queue's current item), in seconds into it, in order: for an address,
    /// its downloaded byte ranges in proportion to the file's length (exact for PCM, close for the others); for a file
    /// or data, the whole of it. Empty until an address's header is here (a queue's: until the queue opens it), and when
    /// nothing plays.
    public var loadedTimeRanges: [Range<TimeInterval>] {
        switch state.withLock({ download(in: $0) }) {
        case .nothing: []
        case .file(let duration): duration > 0 ? [0..<duration] : []
        case .address(let progress, let duration): progress?.loadedTimeRanges(duration: duration) ?? []
        }
    }

    /// Whether playback waits for a download: an address's header is not here yet, or the buffer ran empty (a start or
    /// a seek waiting for its first audio, or a stall: the decoder waits for bytes and the ring ran dry). Always false
    /// for files.
    public var isPlaybackBufferEmpty: Bool {
        state.withLock { state in
            state.file.load == .loading
                || state.buffering.isBufferEmpty(state.voice, on: state.engine, decoderWaits: state.decoderWaits)
        }
    }

    /// Whether playback is likely to go on without stalling: for an address, the whole of it is downloaded, or at least
    /// 2 seconds from where playback reads; always true for a file, false when nothing plays (or a queue's address is
    /// not opened yet).
    public var isPlaybackLikelyToKeepUp: Bool {
        switch state.withLock({ download(in: $0) }) {
        case .nothing: false
        case .file: true
        case .address(let progress, let duration): progress?.isLikelyToKeepUp(duration: duration) ?? false
        }
    }

    /// Starts looking at the buffer, every ``RemoteBuffering/interval`` while the player lives, unless a thread does:
    /// once it first plays an address. From then on a new voice's output waits for its first audio.
    func watchDownloads() {
        let isNew = state.withLock { state in
            defer { state.watchesDownloads = true }
            return !state.watchesDownloads
        }
        guard isNew else { return }
        SystemThread.detach(name: "audio-remote", realtime: false) { [weak self] in
            // Held weakly between looks: the player may go at any time, and the thread with it.
            RemoteBuffering.keepLooking { [weak self] in
                guard let self else { return false }
                lookAtBuffer()
                return true
            }
        }
    }

    /// Stalls playback when the buffer runs empty while the decoder waits for bytes, and resumes it once enough is
    /// buffered (see ``RemoteBuffering/look(at:on:isPlaying:decoderWaits:download:)``).
    private func lookAtBuffer() {
        withState { state, events in
            fetchAhead(state)
            hearMetadata(&state, &events)
            guard let voice = state.voice, let engine = state.engine, state.isInMix, state.waitsToMinimizeStalls else { return }
            let download = state.reading.flatMap { state.readers[$0] }.flatMap { address in address.progress.map { (progress: $0, duration: address.duration) } }
            switch state.buffering.look(
                at: voice, on: engine, isPlaying: state.isPlaying, decoderWaits: state.decoderWaits, download: download) {
            case .stalled:
                currentItem(in: state)?.item.stalled()
                events.append(.playbackStalled)
            case .resumed: events.append(.playbackResumed)
            case nil: break
            }
        }
    }
}

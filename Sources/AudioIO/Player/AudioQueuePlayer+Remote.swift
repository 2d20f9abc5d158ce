import FoundationEssentials
import SystemEdge

/// Items that are `http` or `https` addresses: what is downloaded of the current one, as `AVQueuePlayer.currentItem`
/// tells it, and the stall and resume of its output, decided as an ``AudioPlayer``'s are (``RemoteBuffering``).
extension AudioQueuePlayer {
    /// The stretches of ``currentItem`` downloaded, in seconds into it, in order (see
    /// ``AudioPlayer/loadedTimeRanges``): for an address, from when the queue has opened it to play; for a file, the
    /// whole of it. Empty when the queue is empty, or its address is not opened yet.
    public var loadedTimeRanges: [Range<TimeInterval>] {
        state.withLock { state in
            guard let item = state.items.first else { return [] }
            guard RemoteAsset.isRemote(item.url) else { return [0..<item.duration] }
            return state.readers[item.token]?.asset.progress.loadedTimeRanges(duration: item.duration) ?? []
        }
    }

    /// Whether playback waits for a download: a start or a seek waiting for the first audio of an address, or a stall
    /// (the decoder waits for bytes and the buffer ran empty). Always false for a queue of files.
    public var isPlaybackBufferEmpty: Bool {
        state.withLock { state in
            state.buffering.isBufferEmpty(state.voice, on: state.engine, decoderWaits: state.decoderWaits)
        }
    }

    /// Whether playback of ``currentItem`` is likely to go on without stalling (see
    /// ``AudioPlayer/isPlaybackLikelyToKeepUp``): for an address the queue has opened, the whole of it is downloaded,
    /// or at least 2 seconds from where playback reads; false for one not opened yet, and for an empty queue; always
    /// true for a file.
    public var isPlaybackLikelyToKeepUp: Bool {
        state.withLock { state in
            guard let item = state.items.first else { return false }
            guard RemoteAsset.isRemote(item.url) else { return true }
            return state.readers[item.token]?.asset.progress.isLikelyToKeepUp(duration: item.duration) ?? false
        }
    }

    /// Starts looking at the buffer, every ``RemoteBuffering/interval`` while the queue lives, once `urls` hold an
    /// address (and no earlier one did).
    func watchDownloads(of urls: [URL]) {
        guard urls.contains(where: RemoteAsset.isRemote) else { return }
        let isNew = state.withLock { state in
            defer { state.watchesDownloads = true }
            return !state.watchesDownloads
        }
        guard isNew else { return }
        SystemThread.detach(name: "audio-remote", realtime: false) { [weak self] in
            // Held weakly between looks: the queue may go at any time, and the thread with it.
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
            guard let voice = state.voice, let engine = state.engine, state.isInMix else { return }
            switch state.buffering.look(
                at: voice, on: engine, isPlaying: state.isPlaying, decoderWaits: state.decoderWaits, download: state.download) {
            case .stalled: events.append(.playbackStalled)
            case .resumed: events.append(.playbackResumed)
            case nil: break
            }
        }
    }
}

import FoundationEssentials
import SystemEdge

/// Whether an address's header has downloaded.
enum RemoteLoad: Equatable {
    case loading
    case loaded
    case failed
}

/// An ``AudioPlayer`` of an `http` or `https` address: its header is read on a thread of its own, and the status turns
/// ready or failed once it is here.
extension AudioPlayer {
    /// Reads the header of `item`, an address, on a thread of its own, and makes the status ready or failed; the
    /// player looks at its buffer from now on.
    func startLoading(_ item: PlayedFile) {
        state.withLock { $0.file.load = .loading }
        watchDownloads()
        SystemThread.detach(name: "audio-remote", realtime: false) { [weak self, weak item] in
            // Neither the asset nor the player is held here: they go with the player, or with its item.
            guard let self, let item else { return }
            load(item)
        }
    }

    /// Opens `item`'s header and, while it is still the player's, makes the status ready or failed.
    private func load(_ item: PlayedFile) {
        guard let remote = item.remote else { return }
        defer { item.loadEnded.signal() }
        let opened = Result { () throws(AudioFileError) in try AudioFile(remote: remote, timeline: item.liveTimeline) }
        if case .success(let file) = opened { item.facts.withLock { $0 = (file.duration, file.channelCount) } }
        withState { state, events in
            guard self.item === item else { return }
            switch opened {
            case .success(let file) where file.frameCount > 0:
                state.file.load = .loaded
                state.status.change(to: .readyToPlay, reporting: Event.statusChanged, in: &events)
            case .success:
                state.file.load = .failed
                state.status.change(to: .failed(.file(AudioFileError(path: remote.name, reason: .noAudio))), reporting: Event.statusChanged, in: &events)
            case .failure(let error):
                state.file.load = .failed
                state.status.change(to: .failed(.file(error)), reporting: Event.statusChanged, in: &events)
            }
        }
    }

    /// For an address: waits until its header has downloaded or failed (``BasePlayer/status`` says which). A file has it.
    func awaitLoad() {
        let item = self.item
        guard item.remote != nil else { return }
        item.loadEnded.wait()
        item.loadEnded.signal()
    }
}

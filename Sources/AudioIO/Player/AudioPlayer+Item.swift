import FoundationEssentials

/// Changing what a player plays without making another, as `AVPlayer.replaceCurrentItem(with:)` does.
extension AudioPlayer {
    /// Plays the file or address at `url` instead of what the player plays now, from its start, playing on if it was
    /// playing, as `AVPlayer.replaceCurrentItem(with:)`. The player stays the same: its delegate, event streams, time
    /// observers, device, volume, gain, pan, rate and pitch algorithm, loops and metering go on. What belonged to the
    /// item goes with it: the position (back to 0), the playback range (``forwardPlaybackStartTime``,
    /// ``forwardPlaybackEndTime``), the passes of a loop heard.
    ///
    /// ``BasePlayer/status`` turns unknown, then ready once the new item is prepared (``prepareToPlay()``, ``play()``, or at once
    /// when playing a file). An address loads, stalls and resumes as it does for ``init(contentsOf:options:cache:)``, its
    /// requests carrying `options`' header fields; playing on,
    /// this call then waits for its header, as ``play()`` does.
    ///
    /// - Throws: ``AudioFileError`` when the file cannot be read as audio, or the address is not one this library
    ///   downloads (or with `options`); the player then goes on with what it played.
    public func replaceCurrentItem(
        with url: URL, options: AudioAsset.Options = AudioAsset.Options(), cache: RemoteCache = .shared
    ) throws(AudioFileError) {
        replace(with: try PlayedFile.open(url, options: options, cache: cache))
    }

    /// Plays `data`, the bytes of any file format ``AudioFile`` reads, instead of what the player plays now, as
    /// ``replaceCurrentItem(with:options:cache:)`` does with a file.
    ///
    /// - Throws: ``AudioFileError`` when the bytes are not audio; the player then goes on with what it played.
    public func replaceCurrentItem(with data: Data) throws(AudioFileError) {
        replace(with: try PlayedFile(data: data))
    }

    private func replace(with item: PlayedFile) {
        let playsOnOnceLoaded = withState { state, events in
            let wasPlaying = state.isPlaying
            state.seeks.end(finished: false)
            release(&state)
            current.withLock { $0 = item }
            // What belonged to the item goes with it: its range, the passes of a loop heard, its loading.
            state.file = FileState()
            state.time = 0
            if item.remote != nil { state.file.load = .loading }
            state.status.change(to: .unknown, reporting: Event.statusChanged, in: &events)
            // A file plays on at once; an address once its header is here, which is not waited for under the lock.
            guard wasPlaying, item.remote == nil else { return wasPlaying }
            _ = start(&state, &events, at: nil)
            return false
        }
        if item.remote != nil { startLoading(item) }
        if playsOnOnceLoaded { play() }
    }
}

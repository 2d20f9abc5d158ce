import FoundationEssentials

/// How a queue plays: one decoder walks the items, opening each as the one before ends, and feeds one voice, whose
/// items tell the queue when each is heard.
extension AudioQueuePlayer {
    /// `url`'s length in seconds, once it is known to be readable audio.
    static func check(_ url: URL, cache: RemoteCache) throws(AudioFileError) -> TimeInterval {
        let file = try AudioFile(forReading: url, cache: cache)
        guard file.frameCount > 0 else { throw AudioFileError(path: url.path, reason: .noAudio) }
        return file.duration
    }

    /// Starts looking at the buffer once `urls` hold an address.
    func watchDownloads(of urls: [URL]) {
        if urls.contains(where: RemoteAsset.isRemote) { watchDownloads() }
    }

    /// Makes a voice from the first item that can be played (reporting and dropping those that cannot), primed and
    /// not yet in the mix, unless one is; false when the device cannot be opened or no item is left.
    func prepareFirstPlayable(_ state: inout State, _ events: inout [Event]) -> Bool {
        if state.voice != nil { return true }
        let engine: StreamEngine
        do {
            let session = AudioSession.shared
            engine = try StreamEngine.engine(
                for: state.deviceName ?? session.outputForNewPlayers, direction: .playback, request: session.playbackRequest)
        } catch {
            state.status.change(to: .failed(.device(error)), reporting: Event.statusChanged, in: &events)
            return false
        }
        var failure: AudioFileError?
        while let first = state.queue.items.first {
            let file: AudioFile
            do {
                file = try Self.open(first.url, channels: engine.configuration.channelCount, cache: cache)
            } catch {
                state.queue.items.removeFirst()
                state.time = 0
                state.queue.anItemFailed = true
                failure = error
                events.append(.itemDidFailToPlayToEnd(first.url, error))
                continue
            }
            state.queue.generation += 1
            let generation = state.queue.generation
            state.queue.decoded = 1
            state.queue.decodeFailure = nil
            do {
                let (voice, decoder) = try PlaybackPipeline.start(
                    file: file, item: first.token, gain: first.gain, reportsItems: true, on: engine, owner: self,
                    startTime: state.time, controls: state.controls, observers: state.observers, tap: state.tap,
                    onError: { [weak self] error in self?.decoderFailed(error, generation: generation) },
                    next: { [weak self] _ in self?.nextSource(generation: generation, channels: engine.configuration.channelCount) ?? .end })
                if let reader = file.remote { state.readers[first.token] = OpenedAddress(reader: reader, duration: file.duration) }
                state.reading = first.token
                state.engine = engine
                state.voice = voice
                state.decoder = decoder
                state.status.change(to: .readyToPlay, reporting: Event.statusChanged, in: &events)
                return true
            } catch {
                release(&state)
                state.seeks.end(finished: false)
                state.status.change(to: .failure(error, path: first.url.path), reporting: Event.statusChanged, in: &events)
                return false
            }
        }
        if let failure { state.status.change(to: .failed(.file(failure)), reporting: Event.statusChanged, in: &events) }
        return false
    }

    /// `url` opened for playing on a device of `channels` channels.
    private static func open(_ url: URL, channels: Int, cache: RemoteCache) throws(AudioFileError) -> AudioFile {
        let file = try AudioFile(forReading: url, cache: cache)
        guard ChannelMap(from: file.channelCount, to: channels) != nil else {
            throw AudioFileError(path: url.path, reason: .unsupported(
                "its \(file.channelCount) channels cannot be played on a \(channels)-channel device"))
        }
        return file
    }

    /// Decoder thread: the file after the last one opened, if the queue has one and `generation` is the
    /// decoder in use. Items that can no longer be played are skipped, to be reported in their turn.
    private func nextSource(generation: Int, channels: Int) -> NextSource {
        // The item read to its end is queued again as the repeat mode says; not one skipped on the way.
        var hasEndedAnItem = true
        while true {
            let next = state.withLock { state -> Item? in
                guard state.queue.generation == generation else { return nil }
                if hasEndedAnItem { state.queue.queueAgainTheLastDecoded() }
                hasEndedAnItem = false
                guard state.queue.decoded < state.queue.items.count else { return nil }
                let item = state.queue.items[state.queue.decoded]
                state.opensAddress = RemoteAsset.isRemote(item.url)
                return item
            }
            guard let next else { return .end }
            let (url, token) = (next.url, next.token)
            let opened = Result { () throws(AudioFileError) in try Self.open(url, channels: channels, cache: cache) }
            // The item's gain as it is once it is the one read: one set after that reaches the decoder itself.
            let gain = state.withLock { state -> Float? in
                guard state.queue.generation == generation else { return nil }
                state.queue.decoded += 1
                state.opensAddress = false
                switch opened {
                case .success(let file):
                    state.reading = token
                    if let reader = file.remote { state.readers[token] = OpenedAddress(reader: reader, duration: file.duration) }
                case .failure(let error):
                    state.queue.skipped[token] = error
                }
                return state.queue.items.first { $0.token == token }?.gain ?? next.gain
            }
            guard let gain else { return .end }
            if case .success(let file) = opened { return .file(file, item: token, gain: gain) }
        }
    }

    /// Decoder thread: reading failed; the voice ends after what was read, and the item then counts as failed.
    private func decoderFailed(_ error: AudioFileError, generation: Int) {
        state.withLock { state in
            if state.queue.generation == generation { state.queue.decodeFailure = error }
        }
    }

    /// The voice took up the next item: those before it have ended.
    func queueVoiceDidStartItem(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            let token = voice.currentItem.load(ordering: .acquiring)
            while let first = state.queue.items.first, first.token != token {
                state.queue.items.removeFirst()
                state.readers[first.token] = nil
                state.queue.decoded -= 1
                state.time = 0
                events.append(itemEnded(first, &state))
            }
        }
    }

    /// The voice went through every item it opened: the queue plays on with items inserted since, or has run out.
    func queueVoiceDidFinish(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            // The voice went through the items it opened, the skipped ones after the last it played included.
            let done = max(state.queue.decoded, 1)
            for item in state.queue.items.prefix(done) { events.append(itemEnded(item, &state)) }
            state.queue.items.removeFirst(min(done, state.queue.items.count))
            state.controls.voiceEnded(voice, fileChannels: 0)
            release(&state)
            state.time = 0
            state.seeks.end(finished: true)
            // Items inserted after the decoder had already ended still play.
            if state.queue.items.isEmpty || !start(&state, &events) {
                events.append(.finishedPlaying(successfully: !state.queue.anItemFailed))
                state.queue.anItemFailed = false
            }
        }
    }

    /// The event for `item`, which playback has gone past: played to its end (it joins the items played), skipped, or
    /// failed in the middle.
    private func itemEnded(_ item: Item, _ state: inout State) -> Event {
        if let error = state.queue.skipped.removeValue(forKey: item.token)
            ?? state.queue.decodeFailure.flatMap({ $0.path == item.url.path ? $0 : nil }) {
            state.queue.anItemFailed = true
            return .itemDidFailToPlayToEnd(item.url, error)
        }
        state.queue.played.append(item)
        return .itemDidPlayToEnd(item.url)
    }
}

import FoundationEssentials

/// How a player plays its items: one decoder walks them, opening each as the one before ends, and feeds one voice,
/// whose items tell the player when each is heard.
extension Player {
    /// Makes a voice from the first item that can be played (reporting and dropping those that cannot), primed and
    /// not yet in the mix, unless one is; waits while that item loads, or while there is none.
    func prepareFirstPlayable(_ state: inout State, _ events: inout [Event]) -> Preparation {
        if state.voice != nil { return .ready }
        guard let current = state.queue.items.first?.item else { return .waiting(.noItemToPlay) }
        if current.status == .unknown {
            // Loading is on its way; playing starts once it has ended (``itemDidLoad(_:)``). Nothing waits for it here.
            current.load(for: self)
            return .waiting(.evaluatingBufferingRate)
        }
        let engine: StreamEngine
        do {
            let session = AudioSession.shared
            engine = try StreamEngine.engine(
                for: state.deviceName ?? session.outputForNewPlayers, direction: .playback, request: session.playbackRequest)
        } catch {
            // Held by another program: the player waits for it, as for a download, and the session says when it is free.
            if let held = Self.busyDevice(error, isInput: false) {
                state.heldDevice = held.name
                return .waiting(.deviceInUse)
            }
            state.status.change(to: .failed(.device(error)), reporting: Event.statusChanged, in: &events)
            // The item cannot play either: one waiting on its own events (as AVPlayerItem's observers do) is told.
            current.failedToPlayToEnd(.device(error))
            return .failed
        }
        state.heldDevice = nil
        var failure: AudioFileError?
        while let first = state.queue.items.first {
            let file: AudioFile
            do throws(AudioFileError) {
                switch first.item.status {
                case .unknown:
                    // Loading is on its way; playing starts once it has ended (``itemDidLoad(_:)``).
                    first.item.load(for: self)
                    return .waiting(.evaluatingBufferingRate)
                case .failed(let error):
                    throw error.fileError(path: first.item.url)
                case .readyToPlay:
                    file = try Self.open(first.item, channels: engine.configuration.channelCount)
                }
            } catch {
                state.queue.items.removeFirst()
                state.time = 0
                state.queue.anItemFailed = true
                failure = error
                first.item.failedToPlayToEnd(.file(error))
                events.append(.itemDidFailToPlayToEnd(first.item, error))
                continue
            }
            state.queue.generation += 1
            let generation = state.queue.generation
            state.queue.decoded = 1
            state.queue.decodeFailure = nil
            do {
                let (voice, decoder) = try PlaybackPipeline.start(
                    file: file, item: first.token, gain: first.item.gain, range: first.item.range, reportsItems: true,
                    on: engine, owner: self, startTime: max(state.time, first.item.range.start), controls: state.controls,
                    observers: state.observers,
                    tap: state.tap,
                    onError: { [weak self] error in self?.decoderFailed(error, generation: generation) },
                    onTimedMetadata: { [weak self] item, metadata in self?.decoderRead(metadata, item: item) },
                    next: { [weak self] _ in self?.nextSource(generation: generation, channels: engine.configuration.channelCount) ?? .end })
                if let address = OpenedAddress(file) { state.readers[first.token] = address }
                state.reading = first.token
                state.engine = engine
                state.voice = voice
                state.decoder = decoder
                state.status.change(to: .readyToPlay, reporting: Event.statusChanged, in: &events)
                first.item.startedPlaying()
                return .ready
            } catch {
                release(&state)
                state.seeks.end(finished: false)
                let failure = Status.failure(error, path: first.item.url.path)
                state.status.change(to: failure, reporting: Event.statusChanged, in: &events)
                if case .failed(let error) = failure { first.item.failedToPlayToEnd(error) }
                return .failed
            }
        }
        guard let failure else { return .waiting(.noItemToPlay) }
        state.status.change(to: .failed(.file(failure)), reporting: Event.statusChanged, in: &events)
        return .failed
    }

    /// `item` opened for playing on a device of `channels` channels.
    private static func open(_ item: PlayerItem, channels: Int) throws(AudioFileError) -> AudioFile {
        let file = try AudioFile(forReading: item.url, options: item.asset.openingOptions, cache: item.asset.cache, timeline: item.liveTimeline)
        guard ChannelMap(from: file.channelCount, to: channels) != nil else {
            throw AudioFileError(path: item.url.path, reason: .unsupported(
                "its \(file.channelCount) channels cannot be played on a \(channels)-channel device"))
        }
        return file
    }

    /// Decoder thread: the file after the last one opened, if the player advances at an item's end, has one, and
    /// `generation` is the decoder in use. Items that can no longer be played are skipped, to be reported in their turn.
    private func nextSource(generation: Int, channels: Int) -> NextSource {
        // The item read to its end is queued again as the repeat mode says; not one skipped on the way.
        var hasEndedAnItem = true
        while true {
            let next = state.withLock { state -> Entry? in
                guard state.queue.generation == generation, state.queue.actionAtItemEnd == .advance else { return nil }
                if hasEndedAnItem { state.queue.queueAgainTheLastDecoded() }
                hasEndedAnItem = false
                guard state.queue.decoded < state.queue.items.count else { return nil }
                let entry = state.queue.items[state.queue.decoded]
                state.opensAddress = RemoteAsset.isRemote(entry.item.url)
                return entry
            }
            guard let next else { return .end }
            let opened = Result { () throws(AudioFileError) in
                if case .failed(let error) = next.item.status { throw error.fileError(path: next.item.url) }
                return try Self.open(next.item, channels: channels)
            }
            // The item's gain and range as they are once it is the one read: a gain set after that reaches the decoder
            // itself.
            let (gain, range) = (next.item.gain, next.item.range)
            let isCurrent = state.withLock { state -> Bool in
                guard state.queue.generation == generation else { return false }
                state.queue.decoded += 1
                state.opensAddress = false
                switch opened {
                case .success(let file):
                    state.reading = next.token
                    if let address = OpenedAddress(file) { state.readers[next.token] = address }
                case .failure(let error):
                    state.queue.skipped[next.token] = error
                }
                return true
            }
            guard isCurrent else { return .end }
            if case .success(let file) = opened { return .file(file, item: next.token, gain: gain, range: range) }
        }
    }

    /// Decoder thread: reading failed; the voice ends after what was read, and the item then counts as failed.
    private func decoderFailed(_ error: AudioFileError, generation: Int) {
        state.withLock { state in
            if state.queue.generation == generation, let reading = state.reading { state.queue.decodeFailure = (reading, error) }
        }
    }

    /// The voice took up the next item: those before it have ended.
    func playerVoiceDidStartItem(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            let token = voice.currentItem.load(ordering: .acquiring)
            while let first = state.queue.items.first, first.token != token {
                state.queue.items.removeFirst()
                state.readers.removeValue(forKey: first.token)?.cancel()
                state.queue.decoded -= 1
                state.time = 0
                events.append(itemEnded(first, &state))
            }
            state.queue.items.first?.item.startedPlaying()
        }
    }

    /// The voice went through every item it opened: a player that advances plays on with items inserted since, or has
    /// run out; one that pauses (or does nothing) at an item's end stays there with the item.
    func playerVoiceDidFinish(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            state.controls.voiceEnded(voice, fileChannels: 0)
            guard state.queue.actionAtItemEnd == .advance else {
                // The item played stays current, at its end.
                let current = state.queue.items.first
                let isPlaying = state.queue.actionAtItemEnd == .none
                let failed = current.flatMap { state.queue.decodeFailure?.token == $0.token ? state.queue.decodeFailure?.error : nil }
                if let current { events.append(itemEnded(current, &state, staysCurrent: true)) }
                release(&state)
                state.time = current.map { seekTarget($0.item.range.end ?? .infinity, in: state) ?? 0 } ?? 0
                state.seeks.end(finished: true)
                state.isPlaying = isPlaying
                if !isPlaying { events.append(.finishedPlaying(successfully: failed == nil)) }
                return
            }
            // The voice went through the items it opened, the skipped ones after the last it played included.
            let done = max(state.queue.decoded, 1)
            for item in state.queue.items.prefix(done) { events.append(itemEnded(item, &state)) }
            state.queue.items.removeFirst(min(done, state.queue.items.count))
            release(&state)
            state.time = 0
            state.seeks.end(finished: true)
            // Items inserted after the decoder had already ended still play (once loaded).
            if !state.queue.items.isEmpty, start(&state, &events), state.waitingReason != .noItemToPlay { return }
            state.isPlaying = false
            state.waitingReason = nil
            events.append(.finishedPlaying(successfully: !state.queue.anItemFailed))
            state.queue.anItemFailed = false
        }
    }

    /// The event for `entry`, which playback has gone past: played to its end (it joins the items played, unless it
    /// `staysCurrent`), skipped, or failed in the middle. The item hears it too.
    private func itemEnded(_ entry: Entry, _ state: inout State, staysCurrent: Bool = false) -> Event {
        if let error = state.queue.skipped.removeValue(forKey: entry.token)
            ?? state.queue.decodeFailure.flatMap({ $0.token == entry.token ? $0.error : nil }) {
            state.queue.anItemFailed = true
            entry.item.failedToPlayToEnd(.file(error))
            return .itemDidFailToPlayToEnd(entry.item, error)
        }
        if !staysCurrent { state.queue.played.append(entry) }
        entry.item.tell(.didPlayToEnd)
        return .itemDidPlayToEnd(entry.item)
    }

    /// Lets the current item's voice go, changes the queue with `change`, and plays the item then current from its
    /// start if the player was playing (or waits for one, as it was asked to play). A seek waiting to be heard ends
    /// unfinished.
    func changeCurrentItem(_ state: inout State, _ events: inout [Event], _ change: (inout QueueState) -> Void) {
        let wasPlaying = state.isPlaying
        state.seeks.end(finished: false)
        release(&state)
        change(&state.queue)
        state.time = 0
        if wasPlaying { _ = start(&state, &events) }
    }
}

extension PlayerItem {
    /// The part of the item played: from its start (a looper's range's) to its ``forwardPlaybackEndTime``.
    var range: PlaybackRange { state.withLock { PlaybackRange(start: $0.startTime, end: $0.forwardPlaybackEndTime) } }
}

extension AudioPlayerError {
    /// The file's error this failure holds, or one that says so for `url`.
    func fileError(path url: URL) -> AudioFileError {
        if case .file(let error) = self { return error }
        return AudioFileError(path: url.path, reason: .unsupported(description))
    }
}

import FoundationEssentials
import Synchronization

/// Plays a list of audio files back to back without a gap, with the semantics of `AVQueuePlayer`.
///
/// ```swift
/// let queue = try AudioQueuePlayer(items: [intro, talk, outro])
/// queue.play()
/// queue.advanceToNextItem()       // skip the intro
/// queue.advanceToPreviousItem()   // back to it
/// ```
///
/// One decoder walks the list and feeds one voice, so the last frame of an item is followed by the first
/// frame of the next on the very next device frame. ``items`` starts with the item playing now; an item
/// leaves the list when it has played to its end (``Event/itemDidPlayToEnd(_:)``) or is skipped, and joins
/// ``previousItems``, which ``advanceToPreviousItem()`` goes back through.
///
/// As `AVQueuePlayer` inherits them from `AVPlayer`, it has what ``AudioPlayer`` has, with the same meaning:
/// ``status``, ``timeControlStatus``, ``volume`` (and fades), ``pan``, ``rate`` (0.25…4, by ``audioTimePitchAlgorithm``; always available), seeking
/// with completion handlers, meters and time observers, whose time is that of the item playing. Each applies to the
/// item playing and to every item after it. Items that are `http` or `https` addresses play as they download, and stall
/// and resume as an ``AudioPlayer`` of one does: ``loadedTimeRanges``, ``isPlaybackBufferEmpty`` and
/// ``isPlaybackLikelyToKeepUp`` are those of ``currentItem``, as `AVQueuePlayer.currentItem` has them.
///
/// **Thread safety**: every member may be used from any thread.
public final class AudioQueuePlayer: @unchecked Sendable {
    /// What ``events()`` delivers, in order. What one call changes comes in this order: the status, then
    /// ``timeControlStatus``, ``rate`` and ``currentItem`` as they now are, then what happened (a time jump, items
    /// ended), then the end of the queue.
    public enum Event: Equatable, Sendable {
        /// ``status`` changed.
        case statusChanged(Status)
        /// ``timeControlStatus`` changed: playing or paused.
        case timeControlStatusChanged(TimeControlStatus)
        /// ``rate`` changed (to the value given, clamped).
        case rateChanged(Float)
        /// ``currentItem`` changed, as `AVQueuePlayer.currentItem` does: the next item's first frame was played, an
        /// advance or a removal, or the queue ran out (`nil`). An item queued twice in a row is a change too.
        case currentItemChanged(URL?)
        /// The position moved other than by playing on, as `AVPlayerItem.timeJumpedNotification` tells: a seek within
        /// the current item. ``currentTime`` is where it went.
        case timeJumped
        /// The item played to its end (the next one, if any, is playing already).
        case itemDidPlayToEnd(URL)
        /// The item could not be played (to its end): it changed on the disk since it was queued, has
        /// channels the device cannot take, or reading it failed. It leaves the queue; the next one plays.
        case itemDidFailToPlayToEnd(URL, AudioFileError)
        /// The queue ran out (false when an item failed on the way), or the device failed (false). A device that
        /// vanishes does not end the queue: it pauses where it was, as the session's route change says, and
        /// ``play()`` goes on once the device is back.
        case finishedPlaying(successfully: Bool)
        /// An address's download fell behind: the buffer ran empty, and the output is paused until enough is buffered,
        /// as ``AudioPlayer/Event/playbackStalled``. ``isPlaying`` stays true: playback goes on by itself. Only on a
        /// device with a clock: one without (ALSA's `null`, an ``OfflineRenderer``) waits for the audio instead.
        case playbackStalled
        /// Enough is buffered again after ``playbackStalled``: playback goes on where it stalled.
        case playbackResumed
    }

    /// Whether the queue can play: unknown until it first plays, then ready, or failed with the reason
    /// (``AudioPlayer/Status``, as `AVQueuePlayer` has `AVPlayer`'s).
    public typealias Status = AudioPlayer.Status

    /// Whether the queue plays: playing or paused (``AudioPlayer/TimeControlStatus``).
    public typealias TimeControlStatus = AudioPlayer.TimeControlStatus

    /// A file in the queue; `token` tells two entries of one file apart.
    struct Item {
        let url: URL
        let token: Int
        /// Seconds.
        let duration: TimeInterval
        /// Decibels, −96…+48, before the queue's volume (``AudioQueuePlayer/setGain(_:for:)``).
        var gain: Float = 0
        /// Who queued it: the listener (`.none`), or the repeat mode, as the next pass of the item before it (`.one`) or
        /// an item come round again at the end (`.all`).
        var queuedBy = RepeatMode.none
        /// Whether repeat all has queued it again at the end.
        var hasComeRound = false
    }

    struct State {
        var items: [Item] = []
        /// The items played, or skipped by ``AudioQueuePlayer/advanceToNextItem()``, before the current one, oldest first.
        var played: [Item] = []
        var nextToken = 0
        /// Counts the decoders started; a decoder asks for the next item with its own count, so that one
        /// stopped by an edit cannot take an item from its successor.
        var generation = 0
        /// How many items, from the first, the decoder has opened.
        var decoded = 0
        var deviceName: String?
        var engine: StreamEngine?
        var voice: Voice?
        var decoder: PlaybackDecoder?
        var isInMix = false
        var isPlaying = false
        var status = Status.unknown
        /// The queue's voices have a rate stage from the start, so that ``AudioQueuePlayer/rate`` applies while playing.
        var controls = PlaybackControls(enableRate: true)
        var repeatMode = RepeatMode.none
        var observers = TimeObservers()
        /// Seconds into the current item where the voice started, or where the next one starts.
        var time: TimeInterval = 0
        /// What the decoder reported failing, for the item it was reading.
        var decodeFailure: AudioFileError?
        /// Items the decoder skipped because they could not be opened, by token: reported when playback
        /// reaches them.
        var skipped: [Int: AudioFileError] = [:]
        /// An item failed since playback last started from an empty queue.
        var anItemFailed = false
        /// Seconds of silence skipped by the voices let go.
        var skippedBefore: TimeInterval = 0
        var seeks = SeekCompletions()
        /// Whether a thread looks at the buffer: since an address was first queued.
        var watchesDownloads = false
        /// Whether the output waits for an address's download.
        var buffering = RemoteBuffering()
        /// The readers of the items the decoder opened that are addresses, by token.
        var readers: [Int: RemoteReader] = [:]
        /// The item the decoder reads, by token.
        var reading: Int?
        /// The decoder opens the next item, an address: it waits for its header, which may take any time.
        var opensAddress = false
        var delegate = WeakQueueDelegate()
        var subscribers = EventSubscribers<Event>()
        var listeners = EventListeners<Event>()
        /// What ``AudioQueuePlayer/renderedAudio()`` streams, once asked for.
        var tap: PlayerTap?

        /// Adds `url`, of `duration` seconds, played at `gain` dB, at `index` (the end when nil), queued by the listener
        /// or by the repeat mode.
        mutating func insert(
            _ url: URL, duration: TimeInterval, gain: Float = 0, at index: Int? = nil, queuedBy: RepeatMode = .none
        ) {
            items.insert(
                Item(url: url, token: nextToken, duration: duration, gain: gain, queuedBy: queuedBy), at: index ?? items.count)
            nextToken += 1
        }

        /// Seconds into the current item of what is heard now (see ``AudioPlayer/currentTime``).
        var currentTime: TimeInterval {
            voice?.heardPosition(on: engine, isPlaying: isPlaying, rate: controls.rate, startedAt: time) ?? time
        }

        var timeControlStatus: TimeControlStatus { isPlaying ? .playing : .paused }

        /// Whether the decoder waits for bytes: of the address it reads, or to open the next.
        var decoderWaits: Bool {
            opensAddress || reading.flatMap { readers[$0] }?.isWaiting.load(ordering: .relaxed) == true
        }

        /// What is downloaded of the address the decoder reads, and its length in seconds; nil for a file.
        var download: (progress: RemoteAsset.Progress, duration: TimeInterval)? {
            guard let reading, let reader = readers[reading], let item = items.first(where: { $0.token == reading }) else { return nil }
            return (reader.asset.progress, item.duration)
        }

        /// Lets go of the voice and the decoder; the engine drops the voice at its next period.
        mutating func release() {
            skippedBefore += voice?.skipped ?? 0
            if isInMix {
                voice?.removalRequested.store(true, ordering: .releasing)
                engine?.wake()
            }
            decoder?.stop()
            // A decoder waiting for bytes no one will hear ends now.
            readers.values.forEach { $0.cancel() }
            readers.removeAll()
            reading = nil
            opensAddress = false
            buffering.reset()
            voice = nil
            decoder = nil
            isInMix = false
            observers.voiceReleased()
            // The next pass of the current item, queued by repeat one: the next decoder queues it again if it is still due.
            removeRepeatedPasses()
            decoded = 0
            decodeFailure = nil
            skipped.removeAll()
        }
    }

    let state = Mutex(State())
    /// Where items that are `http` or `https` addresses keep their bytes.
    let cache: RemoteCache

    /// Creates a queue of `items`, checking that each can be read.
    ///
    /// - Parameters:
    ///   - items: Files' URLs, or `http` or `https` addresses: those play as they download (checking one waits for its
    ///     header), and stall and resume as an ``AudioPlayer`` of one does.
    ///   - cache: Where the addresses' bytes are kept.
    /// - Throws: ``AudioFileError`` for the first item that is not readable audio.
    public init(items: [URL], cache: RemoteCache = .shared) throws(AudioFileError) {
        self.cache = cache
        var checked: [(URL, TimeInterval)] = []
        for url in items { checked.append((url, try Self.check(url, cache: cache))) }
        state.withLock { state in checked.forEach { state.insert($0.0, duration: $0.1) } }
        watchDownloads(of: items)
    }

    /// The ALSA PCM to play on; `nil` means "default". Takes effect when playback next starts from scratch.
    public var currentDevice: String? {
        get { state.withLock { $0.deviceName } }
        set { state.withLock { $0.deviceName = newValue } }
    }

    /// Receives the events (weakly held): items ending, the current item, the end of the queue, time control status,
    /// rate and time jumps.
    public var delegate: (any AudioQueuePlayerDelegate)? {
        get { state.withLock { $0.delegate.value } }
        set { state.withLock { $0.delegate = WeakQueueDelegate(value: newValue) } }
    }

    /// The queue: the item playing (or next to play) first.
    public var items: [URL] { state.withLock { $0.items.map(\.url) } }

    /// The item playing, or next to play; a change is an ``Event/currentItemChanged(_:)``.
    public var currentItem: URL? { state.withLock { $0.items.first?.url } }

    /// The length of ``currentItem`` in seconds, as `AVPlayerItem.duration`; 0 when the queue is empty.
    public var currentItemDuration: TimeInterval { state.withLock { $0.items.first?.duration ?? 0 } }

    /// Ready to play (since a ``play()`` made a voice), failed (the device could not be opened or failed, or no
    /// item left could be played: the last one's reason), or unknown before the first ``play()``. An item that
    /// fails while others play is reported by ``Event/itemDidFailToPlayToEnd(_:_:)`` and leaves the status as it is.
    public var status: Status { state.withLock { $0.status } }

    /// Whether it is playing now.
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }

    /// Playing or paused, as `AVPlayer.timeControlStatus`; each change is an ``Event/timeControlStatusChanged(_:)``.
    public var timeControlStatus: TimeControlStatus { state.withLock { $0.timeControlStatus } }

    /// Seconds into ``currentItem`` of what is heard now: the last frame mixed less what the device still holds
    /// queued, as ``AudioPlayer/currentTime``. Setting it seeks to that exact frame of the item (clamped to it),
    /// playing on if it was playing.
    public var currentTime: TimeInterval {
        get { state.withLock { $0.currentTime } }
        set { seek(to: newValue) }
    }

    /// Starts or resumes playback with the next device period; false when the device cannot be opened or the
    /// queue is empty.
    ///
    /// Like ``AudioPlayer``, the queue follows the shared ``AudioSession``'s policy once it has played: an
    /// interruption pauses it (and resumes it, with ``AudioSession/CategoryOptions/resumeAfterInterruption``),
    /// and unplugging the headphones, or losing the device, pauses it where it was.
    @discardableResult
    public func play() -> Bool {
        joinSession(withState { state, events in start(&state, &events) })
    }

    /// Pauses, keeping the position; ``play()`` resumes.
    public func pause() {
        withState { state, _ in _ = Self.pause(&state) }
    }

    /// Pauses if playing; returns whether it was.
    static func pause(_ state: inout State) -> Bool {
        guard state.isPlaying, let voice = state.voice else { return false }
        if state.engine?.queuesLong == true {
            // The device holds more than a pause may take to be heard: the voice goes (the engine drops what is
            // queued of it) and the next play() starts a new one at the position heard.
            state.time = state.currentTime
            state.release()
        } else {
            voice.isPaused.store(true, ordering: .releasing)
        }
        state.isPlaying = false
        // A seek waiting to be heard is where it was asked for: complete.
        state.seeks.end(finished: true)
        return true
    }

    /// The queue's events, in order, from now on. Each call makes a new stream.
    public func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            state.withLock { $0.subscribers.add(continuation) }
        }
    }

    /// Calls `handler` with each event from now on, as ``AudioPlayer``'s `observe(_:)` does: on the thread where the
    /// event happened, until the observation is cancelled or released.
    package func observe(_ handler: @escaping @Sendable (Event) -> Void) -> PlayerObservation {
        let id = state.withLock { $0.listeners.add(handler) }
        return PlayerObservation { [weak self] in self?.state.withLock { $0.listeners.remove(id) } }
    }

    // MARK: Internals

    /// `url`'s length in seconds, once it is known to be readable audio.
    static func check(_ url: URL, cache: RemoteCache) throws(AudioFileError) -> TimeInterval {
        let file = try AudioFile(forReading: url, cache: cache)
        guard file.frameCount > 0 else { throw AudioFileError(path: url.path, reason: .noAudio) }
        return file.duration
    }

    /// Runs `body` under the lock and hands its events to the subscribers there, in order: the status, then the
    /// changes of ``timeControlStatus``, ``rate`` and ``currentItem`` that `body` made, then what it reports happened.
    /// The delegate, the listeners and seeks' completion handlers are called after the lock is released.
    func withState<T>(_ body: (inout State, inout [Event]) -> T) -> T {
        var events: [Event] = []
        let (result, delegate, listeners, completions) = state.withLock { state in
            let (timeControlStatus, rate, item) = (state.timeControlStatus, state.controls.rate, state.items.first?.token)
            let result = body(&state, &events)
            var changes: [Event] = []
            if state.timeControlStatus != timeControlStatus { changes.append(.timeControlStatusChanged(state.timeControlStatus)) }
            if state.controls.rate != rate { changes.append(.rateChanged(state.controls.rate)) }
            if state.items.first?.token != item { changes.append(.currentItemChanged(state.items.first?.url)) }
            let statuses = events.filter { if case .statusChanged = $0 { true } else { false } }
            events = statuses + changes + events.filter { if case .statusChanged = $0 { false } else { true } }
            state.subscribers.yield(events)
            return (result, state.delegate.value, events.isEmpty ? [] : state.listeners.all, state.seeks.takeDue())
        }
        for event in events {
            delegate?.tell(event, of: self)
            for listener in listeners { listener(event) }
        }
        for completion in completions { completion.handler(completion.finished) }
        return result
    }

    /// Makes a new voice from the current item at the position heard (`heard`, when a change already moved
    /// ``State/currentTime``), playing on if it was playing: after an edit the decoder has read past, or a change to be
    /// heard at once on a device that queues long.
    func restart(_ state: inout State, _ events: inout [Event], from heard: TimeInterval? = nil) {
        let wasPlaying = state.isPlaying
        state.time = heard ?? state.currentTime
        state.release()
        state.isPlaying = false
        if wasPlaying { _ = start(&state, &events) }
        state.seeks.moved(to: state.isPlaying ? state.voice : nil)
    }

    /// After a change to what the voice sounds like (rate, volume) on a device that holds much queued: goes on from
    /// the position heard (`heard`, as ``restart(_:_:from:)`` takes it) with a new voice, so that the change is heard
    /// now rather than after the queue.
    func restartIfQueuedLong(_ state: inout State, _ events: inout [Event], from heard: TimeInterval? = nil) {
        guard state.isPlaying, state.engine?.queuesLong == true else { return }
        restart(&state, &events, from: heard)
    }

    /// Resumes the voice, or makes one from the first item that can be played (reporting and dropping
    /// those that cannot); false when the device cannot be opened or no item is left.
    func start(_ state: inout State, _ events: inout [Event]) -> Bool {
        guard !state.isPlaying else { return true }
        if let voice = state.voice, let engine = state.engine {
            voice.isPaused.store(false, ordering: .releasing)
            if state.watchesDownloads { state.buffering.hold(voice, on: engine) }
            engine.wake()
            state.isPlaying = true
            return true
        }
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
        while let first = state.items.first {
            let file: AudioFile
            do {
                file = try Self.open(first.url, channels: engine.configuration.channelCount, cache: cache)
            } catch {
                state.items.removeFirst()
                state.time = 0
                state.anItemFailed = true
                failure = error
                events.append(.itemDidFailToPlayToEnd(first.url, error))
                continue
            }
            state.generation += 1
            let generation = state.generation
            state.decoded = 1
            state.decodeFailure = nil
            do {
                let (voice, decoder) = try PlaybackPipeline.start(
                    file: file, item: first.token, gain: first.gain, reportsItems: true, on: engine, owner: self,
                    startTime: state.time, controls: state.controls, observers: state.observers, tap: state.tap,
                    onError: { [weak self] error in self?.decoderFailed(error, generation: generation) },
                    next: { [weak self] _ in self?.nextSource(generation: generation, channels: engine.configuration.channelCount) ?? .end })
                voice.startFrame.store(Voice.immediately, ordering: .releasing)
                if let reader = file.remote { state.readers[first.token] = reader }
                state.reading = first.token
                // Before the voice is in the mix: an address's first audio may take any time.
                if state.watchesDownloads { state.buffering.hold(voice, on: engine) }
                try engine.add(voice)
                state.engine = engine
                state.voice = voice
                state.decoder = decoder
                state.isInMix = true
                state.isPlaying = true
                state.status.change(to: .readyToPlay, reporting: Event.statusChanged, in: &events)
                return true
            } catch {
                state.release()
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
                guard state.generation == generation else { return nil }
                if hasEndedAnItem { state.queueAgainTheLastDecoded() }
                hasEndedAnItem = false
                guard state.decoded < state.items.count else { return nil }
                let item = state.items[state.decoded]
                state.opensAddress = RemoteAsset.isRemote(item.url)
                return item
            }
            guard let next else { return .end }
            let (url, token) = (next.url, next.token)
            let opened = Result { () throws(AudioFileError) in try Self.open(url, channels: channels, cache: cache) }
            // The item's gain as it is once it is the one read: one set after that reaches the decoder itself.
            let gain = state.withLock { state -> Float? in
                guard state.generation == generation else { return nil }
                state.decoded += 1
                state.opensAddress = false
                switch opened {
                case .success(let file):
                    state.reading = token
                    if let reader = file.remote { state.readers[token] = reader }
                case .failure(let error):
                    state.skipped[token] = error
                }
                return state.items.first { $0.token == token }?.gain ?? next.gain
            }
            guard let gain else { return .end }
            if case .success(let file) = opened { return .file(file, item: token, gain: gain) }
        }
    }

    /// Decoder thread: reading failed; the voice ends after what was read, and the item then counts as failed.
    private func decoderFailed(_ error: AudioFileError, generation: Int) {
        state.withLock { state in
            if state.generation == generation { state.decodeFailure = error }
        }
    }
}

extension AudioQueuePlayer: VoiceOwner {
    func voiceDidStart(_ voice: Voice) {
        withState { state, _ in
            guard state.voice === voice else { return }
            state.seeks.voiceStarted(voice)
        }
    }

    func voiceDidStartItem(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            let token = voice.currentItem.load(ordering: .acquiring)
            while let first = state.items.first, first.token != token {
                state.items.removeFirst()
                state.readers[first.token] = nil
                state.decoded -= 1
                state.time = 0
                events.append(itemEnded(first, &state))
            }
        }
    }

    func voiceDidFinish(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            // The voice went through the items it opened, the skipped ones after the last it played included.
            let done = max(state.decoded, 1)
            for item in state.items.prefix(done) { events.append(itemEnded(item, &state)) }
            state.items.removeFirst(min(done, state.items.count))
            state.controls.voiceEnded(voice, fileChannels: 0)
            state.release()
            state.isPlaying = false
            state.time = 0
            state.seeks.end(finished: true)
            // Items inserted after the decoder had already ended still play.
            if state.items.isEmpty || !start(&state, &events) {
                events.append(.finishedPlaying(successfully: !state.anItemFailed))
                state.anItemFailed = false
            }
        }
    }

    /// The event for `item`, which playback has gone past: played to its end (it joins the items played), skipped, or
    /// failed in the middle.
    private func itemEnded(_ item: Item, _ state: inout State) -> Event {
        if let error = state.skipped.removeValue(forKey: item.token)
            ?? state.decodeFailure.flatMap({ $0.path == item.url.path ? $0 : nil }) {
            state.anItemFailed = true
            return .itemDidFailToPlayToEnd(item.url, error)
        }
        state.played.append(item)
        return .itemDidPlayToEnd(item.url)
    }

    func voiceDidLoseDevice(_ voice: Voice, error: AudioDeviceError) {
        withState { state, events in
            guard state.voice === voice else { return }
            if voice.hasStarted.load(ordering: .acquiring) { state.time = voice.position }
            state.isInMix = false
            state.release()
            state.engine = nil
            state.isPlaying = false
            state.seeks.end(finished: false)
            // The session's policy: a vanished output pauses the queue where it was, and nothing moves to another
            // device; `play()` opens the device again when it is back.
            if error.reason == .disconnected { return }
            state.status.change(to: .failed(.device(error)), reporting: Event.statusChanged, in: &events)
            events.append(.finishedPlaying(successfully: false))
        }
    }
}

extension AudioQueuePlayer: PlayingParticipant {
    func pauseIfPlaying() -> Bool {
        withState { state, _ in Self.pause(&state) }
    }

    var outputInUse: String? { state.withLock { $0.engine.flatMap { $0.isOffline ? nil : $0.deviceName } } }

    var session: AudioSession { .shared }

    var deviceFoundBusy: (name: String, isInput: Bool)? {
        guard case .failed(.device(let error)) = status else { return nil }
        return Self.busyDevice(error, isInput: false)
    }
}

import FoundationEssentials
import Synchronization

/// Plays a list of audio files back to back without a gap, with the semantics of `AVQueuePlayer`.
///
/// ```swift
/// let queue = try AudioQueuePlayer(items: [intro, talk, outro])
/// queue.play()
/// queue.advanceToNextItem()       // skip the intro
/// ```
///
/// One decoder walks the list and feeds one voice, so the last frame of an item is followed by the first
/// frame of the next on the very next device frame. ``items`` starts with the item playing now; an item
/// leaves the list when it has played to its end (``Event/itemDidPlayToEnd(_:)``).
///
/// As `AVQueuePlayer` inherits them from `AVPlayer`, it has what ``AudioPlayer`` has, with the same meaning:
/// ``status``, ``volume`` (and fades), ``pan``, ``rate`` (pitch kept; always available), meters and time observers,
/// whose time is that of the item playing. Each applies to the item playing and to every item after it.
///
/// **Thread safety**: every member may be used from any thread.
public final class AudioQueuePlayer: @unchecked Sendable {
    /// What ``events()`` delivers, in order.
    public enum Event: Equatable, Sendable {
        /// ``status`` changed.
        case statusChanged(Status)
        /// The item played to its end (the next one, if any, is playing already).
        case itemDidPlayToEnd(URL)
        /// The item could not be played (to its end): it changed on the disk since it was queued, has
        /// channels the device cannot take, or reading it failed. It leaves the queue; the next one plays.
        case itemDidFailToPlayToEnd(URL, AudioFileError)
        /// The queue ran out (false when an item failed on the way), or the device failed (false). A device that
        /// vanishes does not end the queue: it pauses where it was, as the session's route change says, and
        /// ``play()`` goes on once the device is back.
        case finishedPlaying(successfully: Bool)
    }

    /// Whether the queue can play: unknown until it first plays, then ready, or failed with the reason
    /// (``AudioPlayer/Status``, as `AVQueuePlayer` has `AVPlayer`'s).
    public typealias Status = AudioPlayer.Status

    struct State {
        var items: [(url: URL, token: Int)] = []
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
        /// The queue's voices stretch time from the start, so that ``AudioQueuePlayer/rate`` applies while playing.
        var controls = PlaybackControls(enableRate: true)
        var observers = TimeObservers()
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
        var subscribers = EventSubscribers<Event>()

        mutating func append(_ url: URL) {
            items.append((url, nextToken))
            nextToken += 1
        }

        /// Lets go of the voice and the decoder; the engine drops the voice at its next period.
        mutating func release() {
            skippedBefore += voice?.skipped ?? 0
            if isInMix {
                voice?.removalRequested.store(true, ordering: .releasing)
                engine?.wake()
            }
            decoder?.stop()
            voice = nil
            decoder = nil
            isInMix = false
            observers.voiceReleased()
            decoded = 0
            decodeFailure = nil
            skipped.removeAll()
        }
    }

    let state = Mutex(State())

    /// Creates a queue of `items`, checking that each can be read.
    ///
    /// - Throws: ``AudioFileError`` for the first item that is not readable audio.
    public init(items: [URL]) throws(AudioFileError) {
        for url in items { try Self.check(url) }
        state.withLock { state in items.forEach { state.append($0) } }
    }

    /// The ALSA PCM to play on; `nil` means "default". Takes effect when playback next starts from scratch.
    public var currentDevice: String? {
        get { state.withLock { $0.deviceName } }
        set { state.withLock { $0.deviceName = newValue } }
    }

    /// The queue: the item playing (or next to play) first.
    public var items: [URL] { state.withLock { $0.items.map(\.url) } }

    /// The item playing, or next to play.
    public var currentItem: URL? { state.withLock { $0.items.first?.url } }

    /// Ready to play (since a ``play()`` made a voice), failed (the device could not be opened or failed, or no
    /// item left could be played: the last one's reason), or unknown before the first ``play()``. An item that
    /// fails while others play is reported by ``Event/itemDidFailToPlayToEnd(_:_:)`` and leaves the status as it is.
    public var status: Status { state.withLock { $0.status } }

    /// Whether it is playing now.
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }

    /// Seconds into ``currentItem`` of what is heard now.
    public var currentTime: TimeInterval {
        state.withLock { state in
            guard let voice = state.voice, voice.hasStarted.load(ordering: .acquiring) else { return state.time }
            return voice.position
        }
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
    private static func pause(_ state: inout State) -> Bool {
        guard state.isPlaying, let voice = state.voice else { return false }
        voice.isPaused.store(true, ordering: .releasing)
        state.isPlaying = false
        return true
    }

    /// Ends the current item now and goes on with the next, playing if it was playing.
    public func advanceToNextItem() {
        withState { state, events in
            guard !state.items.isEmpty else { return }
            let wasPlaying = state.isPlaying
            state.release()
            state.items.removeFirst()
            state.time = 0
            if wasPlaying { _ = start(&state, &events) } else { state.isPlaying = false }
        }
    }

    /// Inserts `url` after `item` (at the end when `item` is nil or not in the queue).
    ///
    /// - Throws: ``AudioFileError`` when `url` is not readable audio; the queue is then unchanged.
    public func insert(_ url: URL, after item: URL?) throws(AudioFileError) {
        try Self.check(url)
        withState { state, events in
            let position = item.flatMap { item in state.items.firstIndex { $0.url == item } }.map { $0 + 1 }
                ?? state.items.count
            state.items.insert((url, state.nextToken), at: position)
            state.nextToken += 1
            // The decoder has read past the insertion point: restart it where the listener is.
            if position < state.decoded { restart(&state, &events) }
        }
    }

    /// Removes every occurrence of `url`; removing the current item advances to the next.
    public func remove(_ url: URL) {
        withState { state, events in
            let wasCurrent = state.items.first?.url == url
            let decodedRemoved = state.items.prefix(state.decoded).dropFirst().contains { $0.url == url }
            if wasCurrent {
                let wasPlaying = state.isPlaying
                state.release()
                state.time = 0
                state.items.removeAll { $0.url == url }
                if wasPlaying { _ = start(&state, &events) } else { state.isPlaying = false }
                return
            }
            state.items.removeAll { $0.url == url }
            if decodedRemoved { restart(&state, &events) }
        }
    }

    /// Empties the queue and stops.
    public func removeAllItems() {
        withState { state, _ in
            state.release()
            state.items.removeAll()
            state.isPlaying = false
            state.time = 0
        }
    }

    /// The queue's events, in order, from now on. Each call makes a new stream.
    public func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            let id = state.withLock { $0.subscribers.add(continuation) }
            continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.subscribers.remove(id) } }
        }
    }

    // MARK: Internals

    private static func check(_ url: URL) throws(AudioFileError) {
        let file = try AudioFile(forReading: url)
        guard file.frameCount > 0 else { throw AudioFileError(path: url.path, reason: .noAudio) }
    }

    /// Runs `body` under the lock and hands its events to the subscribers there, in order.
    private func withState<T>(_ body: (inout State, inout [Event]) -> T) -> T {
        state.withLock { state in
            var events: [Event] = []
            let result = body(&state, &events)
            state.subscribers.yield(events)
            return result
        }
    }

    /// Makes a new voice from the current item at the listener's position, playing on if it was playing.
    private func restart(_ state: inout State, _ events: inout [Event]) {
        let wasPlaying = state.isPlaying
        state.time = state.voice.map { $0.hasStarted.load(ordering: .acquiring) ? $0.position : state.time } ?? state.time
        state.release()
        if wasPlaying { state.isPlaying = false; _ = start(&state, &events) }
    }

    /// Resumes the voice, or makes one from the first item that can be played (reporting and dropping
    /// those that cannot); false when the device cannot be opened or no item is left.
    private func start(_ state: inout State, _ events: inout [Event]) -> Bool {
        guard !state.isPlaying else { return true }
        if let voice = state.voice, let engine = state.engine {
            voice.isPaused.store(false, ordering: .releasing)
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
                file = try Self.open(first.url, channels: engine.configuration.channelCount)
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
                    file: file, item: first.token, reportsItems: true, on: engine, owner: self, startTime: state.time,
                    controls: state.controls, observers: state.observers,
                    onError: { [weak self] error in self?.decoderFailed(error, generation: generation) },
                    next: { [weak self] _ in self?.nextSource(generation: generation, channels: engine.configuration.channelCount) ?? .end })
                voice.startFrame.store(Voice.immediately, ordering: .releasing)
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
                state.status.change(to: .failure(error, path: first.url.path), reporting: Event.statusChanged, in: &events)
                return false
            }
        }
        if let failure { state.status.change(to: .failed(.file(failure)), reporting: Event.statusChanged, in: &events) }
        return false
    }

    /// `url` opened for playing on a device of `channels` channels.
    private static func open(_ url: URL, channels: Int) throws(AudioFileError) -> AudioFile {
        let file = try AudioFile(forReading: url)
        guard ChannelMap(from: file.channelCount, to: channels) != nil else {
            throw AudioFileError(path: url.path, reason: .unsupported(
                "its \(file.channelCount) channels cannot be played on a \(channels)-channel device"))
        }
        return file
    }

    /// Decoder thread: the file after the last one opened, if the queue has one and `generation` is the
    /// decoder in use. Items that can no longer be played are skipped, to be reported in their turn.
    private func nextSource(generation: Int, channels: Int) -> NextSource {
        while true {
            let next = state.withLock { state -> (URL, Int)? in
                guard state.generation == generation, state.decoded < state.items.count else { return nil }
                return (state.items[state.decoded].url, state.items[state.decoded].token)
            }
            guard let (url, token) = next else { return .end }
            let opened = Result { () throws(AudioFileError) in try Self.open(url, channels: channels) }
            let isCurrent = state.withLock { state in
                guard state.generation == generation else { return false }
                state.decoded += 1
                if case .failure(let error) = opened { state.skipped[token] = error }
                return true
            }
            guard isCurrent else { return .end }
            if case .success(let file) = opened { return .file(file, item: token) }
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
    func voiceDidStart(_ voice: Voice) {}

    func voiceDidStartItem(_ voice: Voice) {
        withState { state, events in
            guard state.voice === voice else { return }
            let token = voice.currentItem.load(ordering: .acquiring)
            while let first = state.items.first, first.token != token {
                state.items.removeFirst()
                state.decoded -= 1
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
            state.release()
            state.isPlaying = false
            state.time = 0
            // Items inserted after the decoder had already ended still play.
            if state.items.isEmpty || !start(&state, &events) {
                events.append(.finishedPlaying(successfully: !state.anItemFailed))
                state.anItemFailed = false
            }
        }
    }

    /// The event for `item`, which playback has gone past: played to its end, skipped, or failed in the middle.
    private func itemEnded(_ item: (url: URL, token: Int), _ state: inout State) -> Event {
        if let error = state.skipped.removeValue(forKey: item.token)
            ?? state.decodeFailure.flatMap({ $0.path == item.url.path ? $0 : nil }) {
            state.anItemFailed = true
            return .itemDidFailToPlayToEnd(item.url, error)
        }
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
}

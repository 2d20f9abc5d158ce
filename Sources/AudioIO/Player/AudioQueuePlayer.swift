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
/// As `AVQueuePlayer` inherits them from `AVPlayer`, it inherits what ``AudioPlayer`` has from ``BasePlayer``, with the
/// same meaning:
/// ``status``, ``timeControlStatus``, ``volume`` (and fades), ``pan``, ``rate`` (0.25…4, by ``audioTimePitchAlgorithm``; always available), seeking
/// with completion handlers, meters and time observers, whose time is that of the item playing. Each applies to the
/// item playing and to every item after it. Items that are `http` or `https` addresses play as they download, and stall
/// and resume as an ``AudioPlayer`` of one does: ``loadedTimeRanges``, ``isPlaybackBufferEmpty`` and
/// ``isPlaybackLikelyToKeepUp`` are those of ``currentItem``, as `AVQueuePlayer.currentItem` has them.
///
/// **Thread safety**: every member may be used from any thread.
    /// What ``events()`` delivers, in order. What one call changes comes in this order: the status, then
    /// ``timeControlStatus``, ``rate`` and ``currentItem`` as they now are, then what happened (a time jump, items
    /// ended), then the end of the queue.
public final class AudioQueuePlayer: BasePlayer, @unchecked Sendable {
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

    /// What an ``AudioQueuePlayer`` adds to a player's state: its items, and how far the decoder has read them.
    struct QueueState {
        var items: [Item] = []
        /// The items played, or skipped by ``AudioQueuePlayer/advanceToNextItem()``, before the current one, oldest first.
        var played: [Item] = []
        var nextToken = 0
        /// Counts the decoders started; a decoder asks for the next item with its own count, so that one
        /// stopped by an edit cannot take an item from its successor.
        var generation = 0
        /// How many items, from the first, the decoder has opened.
        var decoded = 0
        var repeatMode = RepeatMode.none
        /// What the decoder reported failing, for the item it was reading.
        var decodeFailure: AudioFileError?
        /// Items the decoder skipped because they could not be opened, by token: reported when playback
        /// reaches them.
        var skipped: [Int: AudioFileError] = [:]
        /// An item failed since playback last started from an empty queue.
        var anItemFailed = false

        /// Adds `url`, of `duration` seconds, played at `gain` dB, at `index` (the end when nil), queued by the listener
        /// or by the repeat mode.
        mutating func insert(
            _ url: URL, duration: TimeInterval, gain: Float = 0, at index: Int? = nil, queuedBy: RepeatMode = .none
        ) {
            items.insert(
                Item(url: url, token: nextToken, duration: duration, gain: gain, queuedBy: queuedBy), at: index ?? items.count)
            nextToken += 1
        }

        /// Forgets what the decoder let go had read: the next one starts from the current item.
        mutating func decoderReleased() {
            // The next pass of the current item, queued by repeat one: the next decoder queues it again if it is still due.
            removeRepeatedPasses()
            decoded = 0
            decodeFailure = nil
            skipped.removeAll()
        }
    }

    /// Where items that are `http` or `https` addresses keep their bytes.
    let cache: RemoteCache
    private let weakDelegate = Mutex(WeakQueueDelegate())

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
        // The queue's voices have a rate stage from the start, so that its rate applies while playing.
        super.init(state: State(controls: PlaybackControls(enableRate: true)))
        state.withLock { state in checked.forEach { state.queue.insert($0.0, duration: $0.1) } }
        watchDownloads(of: items)
    }

    /// Receives the events (weakly held): items ending, the current item, the end of the queue, time control status,
    /// rate and time jumps.
    public var delegate: (any AudioQueuePlayerDelegate)? {
        get { weakDelegate.withLock { $0.value } }
        set { weakDelegate.withLock { $0 = WeakQueueDelegate(value: newValue) } }
    }

    /// The queue: the item playing (or next to play) first.
    public var items: [URL] { state.withLock { $0.queue.items.map(\.url) } }

    /// The item playing, or next to play; a change is an ``BasePlayer/Event/currentItemChanged(_:)``.
    public var currentItem: URL? { state.withLock { $0.queue.items.first?.url } }

    /// The length of ``currentItem`` in seconds, as `AVPlayerItem.duration`; 0 when the queue is empty.
    public var currentItemDuration: TimeInterval { state.withLock { $0.queue.items.first?.duration ?? 0 } }

    // MARK: Shape

    override func prepare(_ state: inout State, _ events: inout [Event]) -> Bool {
        prepareFirstPlayable(&state, &events)
    }

    override func release(_ state: inout State) {
        state.release()
        state.queue.decoderReleased()
    }

    override func seekTarget(_ time: TimeInterval, in state: State) -> TimeInterval? {
        state.queue.items.first.map { min(max(time, 0), $0.duration) }
    }

    override func currentItem(in state: State) -> (token: Int, url: URL)? {
        state.queue.items.first.map { ($0.token, $0.url) }
    }

    override func download(in state: State) -> ItemDownload {
        guard let item = state.queue.items.first else { return .nothing }
        guard RemoteAsset.isRemote(item.url) else { return .file(duration: item.duration) }
        return .address(state.readers[item.token]?.progress, duration: item.duration)
    }

    override func tellDelegate(_ events: [Event]) {
        guard let delegate else { return }
        for event in events { delegate.tell(event, of: self) }
    }

    override func voiceDidStart(_ voice: Voice) {
        withState { state, _ in
            guard state.voice === voice else { return }
            state.seeks.voiceStarted(voice)
        }
    }

    override func voiceDidStartItem(_ voice: Voice) { queueVoiceDidStartItem(voice) }

    override func voiceDidFinish(_ voice: Voice) { queueVoiceDidFinish(voice) }
}

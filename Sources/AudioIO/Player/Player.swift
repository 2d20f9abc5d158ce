import FoundationEssentials
import Synchronization

/// Plays items — files and `http(s)` addresses — with the semantics of `AVPlayer`: made at once, it never waits for a
/// download. Each ``PlayerItem`` loads asynchronously; ``BasePlayer/play()`` returns at once, and while the item loads or its
/// download catches up, ``BasePlayer/timeControlStatus`` is `.waitingToPlayAtSpecifiedRate` with the reason.
///
/// ```swift
/// let player = Player(url: episode)
/// player.play()                     // returns at once; plays once the item has loaded
/// player.rate = 1.5                 // a rate other than 0 plays, as AVPlayer's does
/// ```
///
/// What it shares with ``AudioPlayer`` — volume and fades, pan, speed, silence skipping, meters, seeking, time
/// observers, events — is ``BasePlayer``'s. ``QueuePlayer`` plays a list of items, as `AVQueuePlayer`.
///
/// **Thread safety**: every member may be used from any thread.
public class Player: BasePlayer, @unchecked Sendable {
    /// What a player does when its item has played to its end, as `AVPlayer.ActionAtItemEnd`.
    public enum ActionAtItemEnd: Sendable, Equatable {
        /// Goes on with the next item (a ``QueuePlayer``'s default); the item played leaves the queue.
        case advance
        /// Pauses at the item's end, the item staying current (a ``Player``'s default).
        case pause
        /// Stays at the item's end with the rate as it is: a seek back plays on from there.
        case none
    }

    /// An item in the queue: `token` tells two entries of one item apart (a pass repeated).
    struct Entry {
        let item: PlayerItem
        let token: Int
        /// Who queued it: the listener (`.none`), or the repeat mode, as the next pass of the item before it (`.one`) or
        /// an item come round again at the end (`.all`).
        var queuedBy = QueuePlayer.RepeatMode.none
        /// Whether repeat all has queued it again at the end.
        var hasComeRound = false
    }

    /// What a ``Player`` adds to a player's state: its items, and how far the decoder has read them.
    struct QueueState {
        var items: [Entry] = []
        /// The items played, or skipped by ``QueuePlayer/advanceToNextItem()``, before the current one, oldest first.
        var played: [Entry] = []
        var nextToken = 0
        /// Counts the decoders started; a decoder asks for the next item with its own count, so that one
        /// stopped by an edit cannot take an item from its successor.
        var generation = 0
        /// How many items, from the first, the decoder has opened.
        var decoded = 0
        var repeatMode = QueuePlayer.RepeatMode.none
        var actionAtItemEnd = ActionAtItemEnd.pause
        var defaultRate: Float = 1
        /// What the decoder reported failing, for the item it was reading.
        var decodeFailure: (token: Int, error: AudioFileError)?
        /// Items the decoder skipped because they could not be opened, by token: reported when playback
        /// reaches them.
        var skipped: [Int: AudioFileError] = [:]
        /// An item failed since playback last started from an empty queue.
        var anItemFailed = false

        /// Adds `item` at `index` (the end when nil), queued by the listener or by the repeat mode.
        mutating func insert(_ item: PlayerItem, at index: Int? = nil, queuedBy: QueuePlayer.RepeatMode = .none) {
            items.insert(Entry(item: item, token: nextToken, queuedBy: queuedBy), at: index ?? items.count)
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

    /// A player with no item, as `AVPlayer()`: ``replaceCurrentItem(with:)`` gives it one.
    public convenience init() {
        self.init(items: [], actionAtItemEnd: .pause)
    }

    /// A player of the file or `http(s)` address at `url`, as `AVPlayer(url:)`.
    public convenience init(url: URL) {
        self.init(playerItem: PlayerItem(url: url))
    }

    /// A player of `item` (none when nil), as `AVPlayer(playerItem:)`; the item starts loading.
    public convenience init(playerItem item: PlayerItem?) {
        self.init(items: item.map { [$0] } ?? [], actionAtItemEnd: .pause)
    }

    init(items: [PlayerItem], actionAtItemEnd: ActionAtItemEnd) {
        // A player's voices have a rate stage from the start, so that its rate applies while playing.
        super.init(state: State(controls: PlaybackControls(enableRate: true)))
        state.withLock { state in
            state.queue.actionAtItemEnd = actionAtItemEnd
            items.forEach { state.queue.insert($0) }
        }
        items.forEach(take)
    }

    /// The item playing, or next to play; a change is an ``BasePlayer/Event/currentItemChanged(_:)``.
    public var currentItem: PlayerItem? { state.withLock { $0.queue.items.first?.item } }

    /// The length of ``currentItem``, in seconds; 0 while it is not known, or there is no item.
    public override var playbackDuration: TimeInterval {
        currentItem.map { $0.duration.isNaN ? 0 : $0.duration } ?? 0
    }

    /// The channels of ``currentItem``; 0 while it is not known, or there is no item.
    public override var numberOfChannels: Int {
        currentItem?.state.withLock { $0.channelCount } ?? 0
    }

    /// Sets the speed as ``BasePlayer/setRate(_:)`` does, and ``defaultRate`` with it: a paused player resumes at it.
    public override func setRate(_ rate: Float) {
        defaultRate = rate
        super.setRate(rate)
    }

    /// Plays `item` instead of the current item, from its start, playing on if the player was playing, as
    /// `AVPlayer.replaceCurrentItem(with:)`; nil leaves the player with no item (a queue: the next takes its place).
    /// The item replaced leaves the player.
    public func replaceCurrentItem(with item: PlayerItem?) {
        withState { state, events in
            changeCurrentItem(&state, &events) { queue in
                if !queue.items.isEmpty { queue.items.removeFirst() }
                if let item { queue.insert(item, at: 0) }
            }
        }
        item.map(take)
    }

    /// What the player does when an item has played to its end: pause there (a ``Player``'s default), advance to the
    /// next (a ``QueuePlayer``'s), or nothing. A change applies from the next item started.
    public var actionAtItemEnd: ActionAtItemEnd {
        get { state.withLock { $0.queue.actionAtItemEnd } }
        set { withState { state, events in
            guard state.queue.actionAtItemEnd != newValue else { return }
            state.queue.actionAtItemEnd = newValue
            // A decoder that read past the item playing asks again what follows it.
            if state.voice != nil, state.queue.decoded > 1 || newValue == .advance { restart(&state, &events) }
        } }
    }

    /// The rate ``play()`` plays at, as `AVPlayer.defaultRate`: 1 by default, 0.25…4 (clamped; a value that is not a
    /// number, or not above 0, changes nothing). Setting it does not play, nor change the speed of what plays.
    public var defaultRate: Float {
        get { state.withLock { $0.queue.defaultRate } }
        set {
            guard newValue.isFinite, newValue > 0 else { return }
            state.withLock { $0.queue.defaultRate = min(max(newValue, PlaybackControls.rates.lowerBound), PlaybackControls.rates.upperBound) }
        }
    }

    /// Plays at ``defaultRate``, as `AVPlayer.play()` does: at once when the item is ready, else once it is (the player
    /// waits meanwhile, with a reason); it never waits for a download itself.
    ///
    /// - Returns: False when the player cannot play (its status says why); true when it plays or waits to.
    @discardableResult
    public override func play() -> Bool {
        _ = changeRate(to: defaultRate)
        return startPlaying()
    }

    /// Whether playing waits for enough of an address to be downloaded, as
    /// `AVPlayer.automaticallyWaitsToMinimizeStalling`: true (the default) holds the output back at a start, a seek or
    /// a stall until enough is buffered (``BasePlayer/timeControlStatus`` waiting, with the reason); false plays what
    /// is there at once, and what the download has not brought yet is heard as silence.
    public var automaticallyWaitsToMinimizeStalling: Bool {
        get { state.withLock { $0.waitsToMinimizeStalls } }
        set { state.withLock { $0.waitsToMinimizeStalls = newValue } }
    }

    /// Why the player, asked to play, waits rather than plays, as `AVPlayer.reasonForWaitingToPlay`; nil while it
    /// plays or is paused.
    public var reasonForWaitingToPlay: WaitingReason? {
        if case .waitingToPlayAtSpecifiedRate(let reason) = timeControlStatus { reason } else { nil }
    }

    /// Makes `item` the player's, and starts loading it; an address's buffer is looked at from now on.
    func take(_ item: PlayerItem) {
        item.load(for: self)
        if RemoteAsset.isRemote(item.url) { watchDownloads() }
    }

    /// `item` has loaded (or failed to): a player waiting for it starts.
    func itemDidLoad(_ item: PlayerItem) {
        let waits = state.withLock { $0.isPlaying && $0.voice == nil && $0.queue.items.first?.item === item }
        guard waits else { return }
        // Through the session, as play() goes: a device another program holds is waited for, and played on once free.
        _ = joinSession(withState { state, events in
            guard state.isPlaying, state.voice == nil else { return state.isPlaying }
            state.isPlaying = false
            return start(&state, &events)
        })
    }

    /// `item`'s gain changed: the decoder reading it takes it, and a device that queues long hears it at once.
    func itemGainChanged(_ item: PlayerItem) {
        withState { state, events in
            if let reading = state.reading, state.queue.items.contains(where: { $0.token == reading && $0.item === item }) {
                state.decoder?.setGain(item.gain, forItem: reading)
            }
            if state.queue.items.prefix(state.queue.decoded).contains(where: { $0.item === item }) {
                restartIfQueuedLong(&state, &events)
            }
        }
    }

    // MARK: Shape

    override var startsWhenRateIsSet: Bool { true }

    override func prepare(_ state: inout State, _ events: inout [Event]) -> Preparation {
        prepareFirstPlayable(&state, &events)
    }

    override func release(_ state: inout State) {
        state.release()
        state.queue.decoderReleased()
    }

    /// Seconds of the next item fetched ahead once the current one is downloaded to its end.
    static let prefetchSeconds: TimeInterval = 10

    /// Once the item playing is downloaded to its end, the next one's first seconds: it starts without a wait, and the
    /// items after it download nothing yet but their headers.
    override func fetchAhead(_ state: State) {
        guard state.queue.items.count > 1, let reading = state.reading, let address = state.readers[reading],
              address.progress?.isLoadedToEnd == true else { return }
        state.queue.items[1].item.asset.prefetch(seconds: Self.prefetchSeconds)
    }

    override func seekTarget(_ time: TimeInterval, in state: State) -> TimeInterval? {
        guard let item = state.queue.items.first?.item else { return nil }
        let duration = item.duration
        // A station's live stream plays as it comes: nowhere to seek to. A live playlist seeks in its window, which
        // its file, reading the playlist afresh, keeps the seek to.
        if duration == .infinity { return item.liveTimeline.window == nil ? nil : max(time, 0) }
        return duration.isNaN ? max(time, 0) : min(max(time, 0), duration)
    }

    override func resumesAfresh(in state: State) -> Bool {
        guard let item = state.queue.items.first?.item else { return false }
        return item.duration == .infinity && item.liveTimeline.window != nil
    }

    override func currentItem(in state: State) -> (token: Int, item: PlayerItem)? {
        state.queue.items.first.map { ($0.token, $0.item) }
    }

    override func download(in state: State) -> ItemDownload {
        guard let entry = state.queue.items.first else { return .nothing }
        let duration = entry.item.duration
        guard RemoteAsset.isRemote(entry.item.url) else { return .file(duration: duration.isNaN ? 0 : duration) }
        return .address(state.readers[entry.token]?.progress, duration: duration.isNaN ? 0 : duration)
    }

    override func voiceDidStart(_ voice: Voice) {
        withState { state, _ in
            guard state.voice === voice else { return }
            state.waitsForScheduledStart = false
            state.seeks.voiceStarted(voice)
        }
    }

    override func voiceDidStartItem(_ voice: Voice) { playerVoiceDidStartItem(voice) }

    override func voiceDidFinish(_ voice: Voice) { playerVoiceDidFinish(voice) }
}

import FoundationEssentials
import Synchronization
import SystemEdge

/// What a ``Player`` plays, and the state of its playing, as `AVPlayerItem` is to `AVPlayer`: made at once from an
/// address or an ``AudioAsset``, it loads asynchronously once a player has it — its ``status`` goes from unknown to
/// ready or failed by itself, for a file and an address alike — and tells what is downloaded and buffered of it.
///
/// ```swift
/// let item = PlayerItem(url: episode)
/// let player = Player(playerItem: item)
/// for await event in item.events() {
///     if case .statusChanged(.readyToPlay) = event { player.play() }
/// }
/// ```
///
/// An item is in one player at a time, as `AVPlayerItem` is.
///
/// **Thread safety**: every member may be used from any thread.
public final class PlayerItem: @unchecked Sendable, Equatable {
    /// Whether an item can be played: unknown until loaded, then ready, or failed with the reason (also in ``error``).
    public typealias Status = BasePlayer.Status

    /// What ``events()`` delivers, as `AVPlayerItem`'s notifications and its observable properties tell.
    public enum Event: Equatable, Sendable {
        /// ``status`` changed: loading ended, ready or failed.
        case statusChanged(Status)
        /// ``duration`` became known.
        case durationChanged(TimeInterval)
        /// The item played to its end (or ``forwardPlaybackEndTime``), as `AVPlayerItemDidPlayToEndTime`.
        case didPlayToEnd
        /// The item could not be played to its end, as `AVPlayerItemFailedToPlayToEndTime`: its file could not be read
        /// (``AudioPlayerError/file(_:)``), or its player's device could not be opened or failed
        /// (``AudioPlayerError/device(_:)``), when the player's ``BasePlayer/status`` fails too.
        case failedToPlayToEnd(AudioPlayerError)
        /// Its position moved other than by playing on (a seek), as `AVPlayerItemTimeJumped`.
        case timeJumped
        /// Its download fell behind and the output waits, as `AVPlayerItemPlaybackStalled`.
        case playbackStalled
        /// A new entry in ``accessLog()``, as `AVPlayerItemNewAccessLogEntry`.
        case newAccessLogEntry
        /// A new entry in ``errorLog()``, as `AVPlayerItemNewErrorLogEntry`.
        case newErrorLogEntry
    }

    /// What the item plays.
    public let asset: AudioAsset
    let state = Mutex(ItemState())
    /// A live HLS playlist's time line, shared by the files its players open of it (to seek, or to resume).
    let liveTimeline = LiveTimeline()

    /// An item of the file or `http`/`https` address at `url`, as `AVPlayerItem(url:)`.
    public convenience init(url: URL) {
        self.init(asset: AudioAsset(url: url))
    }

    /// An item of `asset`, as `AVPlayerItem(asset:)`; what the asset loaded already is known at once.
    public init(asset: AudioAsset) {
        self.asset = asset
        if let facts = asset.facts { state.withLock { _ = $0.loaded(facts) } }
    }

    /// Items are the same when they are the same object, as `AVPlayerItem`s are.
    public static func == (left: PlayerItem, right: PlayerItem) -> Bool { left === right }

    /// The file or address played: ``asset``'s.
    public var url: URL { asset.url }

    /// Unknown until the item has loaded (which starts once a player has it), then ready to play, or failed with the
    /// reason; each change is an ``Event/statusChanged(_:)``.
    public var status: Status { state.withLock { $0.status } }

    /// Why the item failed, when ``status`` is failed.
    public var error: AudioPlayerError? {
        if case .failed(let error) = status { error } else { nil }
    }

    /// The length in seconds, as `AVPlayerItem.duration`: not a number (`.nan`, indefinite) until the item has
    /// loaded; test it with `isNaN`.
    public var duration: TimeInterval { state.withLock { $0.duration } }

    /// The item's tags, chapters and markers, once it has loaded (empty before), as `AVPlayerItem.asset.metadata`.
    public var metadata: AudioMetadata { state.withLock { $0.metadata } }

    /// A fixed gain in decibels applied before the player's volume, −96…+48 (clamped), 0 by default: what brings each
    /// item to one loudness (``AudioLoudness/normalizationGain(toLoudness:truePeakLimit:)``). The gain holds from the
    /// item's first frame to its last; set while it plays, it is heard within a ring (0.25 s).
    public var gain: Float {
        get { state.withLock { $0.gain } }
        set {
            let player = state.withLock { state in
                state.gain = PlaybackControls.clamped(gain: newValue)
                return state.player
            }
            player?.itemGainChanged(self)
        }
    }

    /// Where playing the item ends, in seconds into it, as `AVPlayerItem.forwardPlaybackEndTime`; nil (the default)
    /// plays to its end. Playing reaching it has played the item to its end (``Event/didPlayToEnd``), on the frame. It
    /// applies from when the item next starts playing (or a seek in it).
    public var forwardPlaybackEndTime: TimeInterval? {
        get { state.withLock { $0.forwardPlaybackEndTime } }
        set { state.withLock { $0.forwardPlaybackEndTime = newValue.flatMap { $0.isNaN ? nil : max($0, 0) } } }
    }

    /// Where playing backwards would end, as `AVPlayerItem.reversePlaybackEndTime`: kept for code written against it.
    /// No player here plays backwards (a negative rate is clamped to 0.25), so it has no effect.
    public var reversePlaybackEndTime: TimeInterval? {
        get { state.withLock { $0.reversePlaybackEndTime } }
        set { state.withLock { $0.reversePlaybackEndTime = newValue } }
    }

    /// Seconds of audio the player would like downloaded ahead of the position, as
    /// `AVPlayerItem.preferredForwardBufferDuration`; 0 (the default) lets the player choose (2 s). It is how much
    /// ahead makes ``isPlaybackBufferFull`` true. The download itself is not held back: what is downloaded is kept in
    /// the cache.
    public var preferredForwardBufferDuration: TimeInterval {
        get { state.withLock { $0.preferredForwardBufferDuration } }
        set { state.withLock { $0.preferredForwardBufferDuration = newValue.isFinite ? max(newValue, 0) : 0 } }
    }

    /// The item's events from now on, in order. Each call makes a new stream.
    public func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            state.withLock { $0.subscribers.add(continuation) }
        }
    }
}

extension PlayerItem {
    /// Everything mutable about an item, under its own lock, which a player may take while holding its own (never the
    /// other way round).
    struct ItemState {
        var status = Status.unknown
        var duration = TimeInterval.nan
        var channelCount = 0
        var metadata = AudioMetadata()
        var gain: Float = 0
        var forwardPlaybackEndTime: TimeInterval?
        var reversePlaybackEndTime: TimeInterval?
        /// Where playing the item starts, in seconds into it: a ``PlayerLooper``'s range's start, else 0.
        var startTime: TimeInterval = 0
        var preferredForwardBufferDuration: TimeInterval = 0
        /// Whether loading has started.
        var isLoading = false
        /// The player that has the item.
        weak var player: Player?
        var subscribers = EventSubscribers<Event>()
        var accessLog = PlayerItemAccessLog()
        var errorLog = PlayerItemErrorLog()

        /// Takes what loading found; returns the events that tell it.
        @discardableResult
        mutating func loaded(_ result: Result<AudioAsset.Facts, AudioFileError>) -> [Event] {
            var events: [Event] = []
            switch result {
            case .success(let facts):
                duration = facts.duration
                channelCount = facts.channelCount
                metadata = facts.metadata
                events.append(.durationChanged(facts.duration))
                status = .readyToPlay
            case .failure(let error):
                status = .failed(.file(error))
            }
            events.append(.statusChanged(status))
            return events
        }
    }

    /// Starts loading on a thread of its own, unless it has (or is loaded); `player`, which now has the item, is told
    /// once it ends.
    func load(for player: Player) {
        let starts = state.withLock { state in
            state.player = player
            defer { state.isLoading = true }
            return !state.isLoading && state.status == .unknown
        }
        guard starts else { return }
        SystemThread.detach(name: "audio-item", realtime: false) { [self] in
            let result = asset.loadNow()
            let player = state.withLock { state in
                var events = state.loaded(result)
                if case .failure(let error) = result {
                    state.logFailure(.file(error), of: url)
                    events.append(.newErrorLogEntry)
                }
                state.subscribers.yield(events)
                return state.player
            }
            player?.itemDidLoad(self)
        }
    }

    /// Tells the item's subscribers `event`.
    func tell(_ event: Event) {
        state.withLock { $0.subscribers.yield([event]) }
    }
}

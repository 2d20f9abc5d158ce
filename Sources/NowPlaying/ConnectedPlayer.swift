import AudioIO
import FoundationEssentials

/// What a ``NowPlayingConnection`` reads of a player and does to it: ``AudioPlayer`` and ``AudioQueuePlayer`` alike.
protocol ConnectedPlayer: AnyObject, Sendable {
    var isPlaying: Bool { get }
    /// Seconds into the item heard; setting it seeks.
    var currentTime: TimeInterval { get set }
    var rate: Float { get }
    var volume: Float { get set }
    /// The file playing, if any: ``NowPlayingConnection``'s info for it is what is published.
    var item: URL? { get }
    /// The length of ``item``, in seconds.
    var itemDuration: TimeInterval { get }
    /// Whether an item follows the current one, and one came before it (a queue's).
    var hasNextItem: Bool { get }
    var hasPreviousItem: Bool { get }
    @discardableResult func play() -> Bool
    func pause()
    /// MPRIS's `Stop`: the player stops, and a `Play` starts the item again from its start.
    func stopForRemote()
    /// Sets the speed at a remote's request.
    func changeRate(to rate: Float)
    func advanceToNextItem()
    func advanceToPreviousItem()
    /// Calls `handler` with what each of the player's events changed, on the thread where it happened.
    func observeChanges(_ handler: @escaping @Sendable (PlayerChange) -> Void) -> PlayerObservation
}

/// What an event of a connected player means for what is published.
enum PlayerChange: Sendable {
    /// The position jumped (a seek, a loop starting over): clients hear `Seeked`.
    case jumped
    /// Another item plays (a queue's), maybe of the same file.
    case itemChanged
    /// Playback ran to its end: the player is shown stopped until it plays again.
    case finished
    /// Something else to publish afresh (the playing state, the rate).
    case other
}

extension AudioPlayer: ConnectedPlayer {
    var item: URL? { url }
    var itemDuration: TimeInterval { duration }
    var hasNextItem: Bool { false }
    var hasPreviousItem: Bool { false }

    func stopForRemote() {
        stop()
        currentTime = 0
    }

    func changeRate(to rate: Float) {
        enableRate = true
        self.rate = rate
    }

    func advanceToNextItem() {}
    func advanceToPreviousItem() {}

    func observeChanges(_ handler: @escaping @Sendable (PlayerChange) -> Void) -> PlayerObservation {
        observe { event in
            switch event {
            case .timeJumped: handler(.jumped)
            case .finishedPlaying: handler(.finished)
            default: handler(.other)
            }
        }
    }
}

extension AudioQueuePlayer: ConnectedPlayer {
    var item: URL? { currentItem }
    var itemDuration: TimeInterval { currentItemDuration }
    var hasNextItem: Bool { items.count > 1 }
    var hasPreviousItem: Bool { !previousItems.isEmpty }

    func stopForRemote() {
        pause()
        currentTime = 0
    }

    func changeRate(to rate: Float) {
        self.rate = rate
    }

    func observeChanges(_ handler: @escaping @Sendable (PlayerChange) -> Void) -> PlayerObservation {
        observe { event in
            switch event {
            case .timeJumped: handler(.jumped)
            case .currentItemChanged: handler(.itemChanged)
            case .finishedPlaying: handler(.finished)
            default: handler(.other)
            }
        }
    }
}

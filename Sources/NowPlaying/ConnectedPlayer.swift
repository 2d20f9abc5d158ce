import AudioIO
import FoundationEssentials

/// What a ``NowPlayingConnection`` reads of a player and does to it: ``AudioPlayer`` and ``Player`` alike.
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
    func skipToNextItem()
    func skipToPreviousItem()
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

    func skipToNextItem() {}
    func skipToPreviousItem() {}

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

extension Player: ConnectedPlayer {
    var item: URL? { currentItem?.url }
    var itemDuration: TimeInterval { currentItem.map { $0.duration.isNaN ? 0 : $0.duration } ?? 0 }
    var hasNextItem: Bool { (self as? QueuePlayer).map { $0.items().count > 1 } ?? false }
    var hasPreviousItem: Bool { (self as? QueuePlayer).map { !$0.previousItems.isEmpty } ?? false }

    func stopForRemote() {
        pause()
        currentTime = 0
    }

    func changeRate(to rate: Float) {
        // A remote's rate changes the speed; it does not play a paused player, as setting a Player's rate would.
        defaultRate = rate
        if isPlaying { self.rate = rate }
    }

    func skipToNextItem() {
        (self as? QueuePlayer)?.advanceToNextItem()
    }

    func skipToPreviousItem() {
        (self as? QueuePlayer)?.advanceToPreviousItem()
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

import AudioIO
import FoundationEssentials

/// What a ``NowPlayingConnection`` reads of a playback beyond ``Playback`` itself: the item a ``Player`` plays, and a
/// ``QueuePlayer``'s next and previous.
extension Playback {
    /// The item heard, for ``NowPlayingConnection``'s info: a ``Player``'s; nil for the others, whose info is fixed.
    var item: URL? { (self as? Player)?.currentItem?.url }

    /// Whether an item follows the current one, and one came before it (a queue's).
    var hasNextItem: Bool { (self as? QueuePlayer).map { $0.items().count > 1 } ?? false }
    var hasPreviousItem: Bool { (self as? QueuePlayer).map { !$0.previousItems.isEmpty } ?? false }

    func skipToNextItem() {
        (self as? QueuePlayer)?.advanceToNextItem()
    }

    func skipToPreviousItem() {
        (self as? QueuePlayer)?.advanceToPreviousItem()
    }

    /// MPRIS's `Stop`: playback pauses back at the start, where a `Play` starts it again.
    func stopForRemote() {
        pause()
        currentTime = 0
    }

    /// Calls `handler` with what each event changed, on the thread where it happened.
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

/// What an event of a connected playback means for what is published.
enum PlayerChange: Sendable {
    /// The position jumped (a seek, a loop starting over): clients hear `Seeked`.
    case jumped
    /// Another item plays (a queue's), maybe of the same file.
    case itemChanged
    /// Playback ran to its end: it is shown stopped until it plays again.
    case finished
    /// Something else to publish afresh (the playing state, the rate).
    case other
}

import FoundationEssentials

/// Receives an ``AudioQueuePlayer``'s events, one method for each of its ``AudioQueuePlayer/Event``s but the status.
///
/// Every method is required, with no default to fall back on, as in ``AudioPlayerDelegate``: a method written with a
/// slightly different signature is a compile error rather than a method that is never called. For one event alone,
/// listen to ``AudioQueuePlayer/events()`` instead.
///
/// **Threads**: methods are called on the engine's event thread, or on the thread whose call caused the event, after
/// the queue's lock is let go; return quickly and do not block.
public protocol AudioQueuePlayerDelegate: AnyObject, Sendable {
    /// ``AudioQueuePlayer/currentItem`` changed to `item` (`nil`: the queue ran out).
    func audioQueuePlayer(_ player: AudioQueuePlayer, currentItemDidChangeTo item: URL?)
    /// `item` played to its end.
    func audioQueuePlayer(_ player: AudioQueuePlayer, itemDidPlayToEnd item: URL)
    /// `item` could not be played (to its end), for `error`; the next one plays.
    func audioQueuePlayer(_ player: AudioQueuePlayer, itemDidFailToPlayToEnd item: URL, error: AudioFileError)
    /// The queue ran out (`successfully` false when an item failed on the way), or the device failed (false).
    func audioQueuePlayerDidFinishPlaying(_ player: AudioQueuePlayer, successfully: Bool)
    /// ``AudioQueuePlayer/timeControlStatus`` changed to `status`.
    func audioQueuePlayerTimeControlStatusDidChange(_ player: AudioQueuePlayer, to status: AudioQueuePlayer.TimeControlStatus)
    /// ``AudioQueuePlayer/rate`` changed to `rate`.
    func audioQueuePlayerRateDidChange(_ player: AudioQueuePlayer, to rate: Float)
    /// The position moved other than by playing on: a seek within the current item.
    func audioQueuePlayerTimeDidJump(_ player: AudioQueuePlayer)
    /// An address's download fell behind: the output waits until enough is buffered
    /// (``AudioQueuePlayer/Event/playbackStalled``).
    func audioQueuePlayerPlaybackDidStall(_ player: AudioQueuePlayer)
    /// Enough is buffered again after a stall: playback goes on where it stalled.
    func audioQueuePlayerPlaybackDidResume(_ player: AudioQueuePlayer)
}

extension AudioQueuePlayerDelegate {
    /// Calls the method for `event` (none for a status change).
    func tell(_ event: AudioQueuePlayer.Event, of player: AudioQueuePlayer) {
        switch event {
        case .currentItemChanged(let item): audioQueuePlayer(player, currentItemDidChangeTo: item)
        case .itemDidPlayToEnd(let item): audioQueuePlayer(player, itemDidPlayToEnd: item)
        case .itemDidFailToPlayToEnd(let item, let error): audioQueuePlayer(player, itemDidFailToPlayToEnd: item, error: error)
        case .finishedPlaying(let successfully): audioQueuePlayerDidFinishPlaying(player, successfully: successfully)
        case .timeControlStatusChanged(let status): audioQueuePlayerTimeControlStatusDidChange(player, to: status)
        case .rateChanged(let rate): audioQueuePlayerRateDidChange(player, to: rate)
        case .timeJumped: audioQueuePlayerTimeDidJump(player)
        case .playbackStalled: audioQueuePlayerPlaybackDidStall(player)
        case .playbackResumed: audioQueuePlayerPlaybackDidResume(player)
        case .statusChanged, .started, .decodeError: break
        }
    }
}

/// A weak reference to the queue's delegate.
struct WeakQueueDelegate {
    weak var value: (any AudioQueuePlayerDelegate)?
}

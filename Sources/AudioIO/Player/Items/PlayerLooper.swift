import FoundationEssentials
import Synchronization

/// Plays an item again and again on a ``QueuePlayer`` without a gap, as `AVPlayerLooper` does: all of it, or a range
/// of it, until ``disableLooping()``.
///
/// ```swift
/// let player = QueuePlayer(items: [])
/// let looper = PlayerLooper(player: player, templateItem: PlayerItem(url: drone), timeRange: 2..<6)
/// player.play()
/// ```
///
/// The looper takes the queue's place: the player plays the template item's passes, each an item of its own
/// (``BasePlayer/Event/itemDidPlayToEnd(_:)`` at each seam, its time from the range's start), and nothing else. Keep
/// the looper: looping ends when it goes.
///
/// **Thread safety**: every member may be used from any thread.
public final class PlayerLooper: Sendable {
    /// Whether the looper loops, as `AVPlayerLooper.Status`.
    public enum Status: Equatable, Sendable {
        /// The template item is loading.
        case unknown
        /// The item loaded: the player loops it.
        case ready
        /// The item cannot be played, for the reason given.
        case failed(AudioPlayerError)
        /// ``disableLooping()`` was called.
        case cancelled
    }

    private let player: QueuePlayer
    private let template: PlayerItem
    private let passes = Mutex((count: 0, isCancelled: false))
    private let observation = Mutex<PlayerObservation?>(nil)

    /// Loops `templateItem` on `player` (its queue emptied first), the part of it in `timeRange` (seconds into it; the
    /// whole item when nil), as `AVPlayerLooper(player:templateItem:timeRange:)`. The player plays once told to.
    public init(player: QueuePlayer, templateItem: PlayerItem, timeRange: Range<TimeInterval>? = nil) {
        self.player = player
        template = templateItem
        if let timeRange {
            templateItem.state.withLock { $0.startTime = max(timeRange.lowerBound, 0) }
            templateItem.forwardPlaybackEndTime = timeRange.upperBound
        }
        let observation = player.observe { [weak self] event in
            guard let self, case .itemDidPlayToEnd(let item) = event, item === template else { return }
            passes.withLock { $0.count += 1 }
        }
        self.observation.withLock { $0 = observation }
        player.removeAllItems()
        player.repeatMode = .one
        player.insert(templateItem, after: nil)
    }

    deinit {
        disableLooping()
    }

    /// Passes of the item played to their end, as `AVPlayerLooper.loopCount`.
    public var loopCount: Int { passes.withLock { $0.count } }

    /// Whether it loops: the template item's status, or cancelled.
    public var status: Status {
        if passes.withLock({ $0.isCancelled }) { return .cancelled }
        switch template.status {
        case .unknown: return .unknown
        case .readyToPlay: return .ready
        case .failed(let error): return .failed(error)
        }
    }

    /// Stops looping, as `AVPlayerLooper.disableLooping()`: the pass playing plays to its end (of the range), and the
    /// queue then ends.
    public func disableLooping() {
        let wasLooping = passes.withLock { passes in
            defer { passes.isCancelled = true }
            return !passes.isCancelled
        }
        if wasLooping { player.repeatMode = .none }
    }
}

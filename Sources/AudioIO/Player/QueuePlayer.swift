import FoundationEssentials

/// Plays a list of items back to back without a gap, with the semantics of `AVQueuePlayer`.
///
/// ```swift
/// let queue = QueuePlayer(items: [intro, talk, outro].map(PlayerItem.init(url:)))
/// queue.play()
/// queue.advanceToNextItem()       // skip the intro
/// queue.advanceToPreviousItem()   // back to it
/// ```
///
/// One decoder walks the list and feeds one voice, so the last frame of an item is followed by the first frame of the
/// next on the very next device frame. ``items()`` starts with the item playing now; an item leaves the list when it has
/// played to its end (``BasePlayer/Event/itemDidPlayToEnd(_:)``) or is skipped, and joins ``previousItems``, which
/// ``advanceToPreviousItem()`` goes back through (as `MPMusicPlayerController.skipToPreviousItem()`). Items are objects:
/// the same ``PlayerItem`` is the same entry, as in `AVQueuePlayer`.
///
/// **Thread safety**: every member may be used from any thread.
public final class QueuePlayer: Player, @unchecked Sendable {
    /// A queue of `items`, as `AVQueuePlayer(items:)`; they start loading, and ``Player/actionAtItemEnd`` is
    /// ``Player/ActionAtItemEnd/advance``.
    public init(items: [PlayerItem]) {
        super.init(items: items, actionAtItemEnd: .advance)
    }

    /// The queue: the item playing (or next to play) first, as `AVQueuePlayer.items()`.
    public func items() -> [PlayerItem] { state.withLock { $0.queue.items.map(\.item) } }

    /// The items played to their end, or skipped with ``advanceToNextItem()``, before ``Player/currentItem``, oldest
    /// first: what ``advanceToPreviousItem()`` goes back through. Items that failed are not among them.
    public var previousItems: [PlayerItem] { state.withLock { $0.queue.played.map(\.item) } }

    /// Ends the current item now and goes on with the next, playing if it was playing, as
    /// `AVQueuePlayer.advanceToNextItem()`; the current item joins ``previousItems`` (and, with ``repeatMode`` all,
    /// comes round again at the end). With repeat one, the next item is the one after the current item, which then
    /// repeats.
    public func advanceToNextItem() {
        withState { state, events in
            guard let current = state.queue.items.first else { return }
            changeCurrentItem(&state, &events) { queue in
                queue.items.removeFirst()
                queue.comeRound(current)
                queue.played.append(current)
            }
        }
    }

    /// Goes back to the last of ``previousItems``, from its start, playing if it was playing; the current item stays
    /// next. Does nothing when no item was played before: the current one is the first.
    ///
    /// After a queue ran out, it brings back its last item, paused.
    public func advanceToPreviousItem() {
        withState { state, events in
            guard let previous = state.queue.played.last else { return }
            changeCurrentItem(&state, &events) { queue in
                queue.played.removeLast()
                queue.insert(previous.item, at: 0)
            }
        }
    }

    /// Whether ``insert(_:after:)`` takes `item` after `afterItem`, as `AVQueuePlayer.canInsert(_:after:)` says:
    /// `afterItem` is nil (the end of the queue) or in the queue, and `item` is in no player's queue yet.
    public func canInsert(_ item: PlayerItem, after afterItem: PlayerItem?) -> Bool {
        let isElsewhere = item.state.withLock { $0.player.map { $0 !== self } ?? false }
        return state.withLock { state in
            let entries = state.queue.items
            let isHere = entries.contains { $0.item === item }
            return !isHere && !isElsewhere && (afterItem.map { after in entries.contains { $0.item === after } } ?? true)
        }
    }

    /// Inserts `item` after `afterItem` (at the end when nil), as `AVQueuePlayer.insert(_:after:)`; it starts loading.
    /// Nothing happens when ``canInsert(_:after:)`` says no: `afterItem` is not in the queue, or `item` is in one.
    public func insert(_ item: PlayerItem, after afterItem: PlayerItem?) {
        guard canInsert(item, after: afterItem) else { return }
        withState { state, events in
            let position = afterItem.flatMap { after in state.queue.items.firstIndex { $0.item === after } }.map { $0 + 1 }
                ?? state.queue.items.count
            state.queue.insert(item, at: position)
            // The decoder has read past the insertion point: restart it where the listener is.
            if position < state.queue.decoded { restart(&state, &events) }
        }
        take(item)
    }

    /// Removes `item` from the queue (and from ``previousItems``), as `AVQueuePlayer.remove(_:)`; removing the current
    /// item advances to the next.
    public func remove(_ item: PlayerItem) {
        withState { state, events in
            state.queue.played.removeAll { $0.item === item }
            if state.queue.items.first?.item === item {
                return changeCurrentItem(&state, &events) { $0.items.removeAll { $0.item === item } }
            }
            let decodedRemoved = state.queue.items.prefix(state.queue.decoded).dropFirst().contains { $0.item === item }
            state.queue.items.removeAll { $0.item === item }
            if decodedRemoved { restart(&state, &events) }
        }
        item.state.withLock { state in if state.player === self { state.player = nil } }
    }

    /// Empties the queue, and ``previousItems``, and stops, as `AVQueuePlayer.removeAllItems()`.
    public func removeAllItems() {
        withState { state, _ in
            state.seeks.end(finished: false)
            release(&state)
            state.queue.items.removeAll()
            state.queue.played.removeAll()
            state.time = 0
        }
    }
}

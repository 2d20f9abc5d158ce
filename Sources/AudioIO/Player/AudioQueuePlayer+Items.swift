import FoundationEssentials

/// Moving through the queue and changing it, as `AVQueuePlayer` does, and back through what was played, as
/// `MPMusicPlayerController.skipToPreviousItem()` does.
extension AudioQueuePlayer {
    /// The items played to their end, or skipped with ``advanceToNextItem()``, before ``currentItem``, oldest first:
    /// what ``advanceToPreviousItem()`` goes back through. Items that failed are not among them.
    public var previousItems: [URL] { state.withLock { $0.queue.played.map(\.url) } }

    /// Ends the current item now and goes on with the next, playing if it was playing; the current item joins
    /// ``previousItems`` (and, with ``repeatMode`` all, comes round again at the end). With repeat one, the next item
    /// is the one after the current item, which then repeats.
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
                queue.insert(previous.url, duration: previous.duration, gain: previous.gain, at: 0)
            }
        }
    }

    /// Whether ``insert(_:after:)`` takes `url` after `item`, as `AVQueuePlayer.canInsert(_:after:)` says: `url` is
    /// audio this library reads, and `item` is nil (the end of the queue) or in the queue. It reads `url`'s header (an
    /// address's waits for its download); an item the device cannot take (too many channels) is told only when it plays.
    public func canInsert(_ url: URL, after item: URL?) -> Bool {
        if let item, !items.contains(item) { return false }
        return (try? Self.check(url, cache: cache)) != nil
    }

    /// Puts `url` in the current item's place, as `AVPlayer.replaceCurrentItem(with:)` does, from its start and playing
    /// if the queue was; the item replaced leaves the queue without joining ``previousItems``. With nil, the next item
    /// takes its place. On an empty queue, `url` becomes its only item.
    ///
    /// - Throws: ``AudioFileError`` when `url` is not readable audio; the queue is then unchanged.
    public func replaceCurrentItem(with url: URL?) throws(AudioFileError) {
        let duration = try url.map { url throws(AudioFileError) in try Self.check(url, cache: cache) }
        withState { state, events in
            changeCurrentItem(&state, &events) { queue in
                if !queue.items.isEmpty { queue.items.removeFirst() }
                if let url, let duration { queue.insert(url, duration: duration, at: 0) }
            }
        }
        if let url { watchDownloads(of: [url]) }
    }

    /// Inserts `url` after `item` (at the end when `item` is nil or not in the queue).
    ///
    /// - Throws: ``AudioFileError`` when `url` is not readable audio; the queue is then unchanged.
    public func insert(_ url: URL, after item: URL?) throws(AudioFileError) {
        let duration = try Self.check(url, cache: cache)
        withState { state, events in
            let position = item.flatMap { item in state.queue.items.firstIndex { $0.url == item } }.map { $0 + 1 }
                ?? state.queue.items.count
            state.queue.insert(url, duration: duration, at: position)
            // The decoder has read past the insertion point: restart it where the listener is.
            if position < state.queue.decoded { restart(&state, &events) }
        }
        watchDownloads(of: [url])
    }

    /// Removes every occurrence of `url`, from the queue and from ``previousItems``; removing the current item
    /// advances to the next.
    public func remove(_ url: URL) {
        withState { state, events in
            state.queue.played.removeAll { $0.url == url }
            let wasCurrent = state.queue.items.first?.url == url
            let decodedRemoved = state.queue.items.prefix(state.queue.decoded).dropFirst().contains { $0.url == url }
            if wasCurrent {
                return changeCurrentItem(&state, &events) { $0.items.removeAll { $0.url == url } }
            }
            state.queue.items.removeAll { $0.url == url }
            if decodedRemoved { restart(&state, &events) }
        }
    }

    /// Empties the queue, and ``previousItems``, and stops.
    public func removeAllItems() {
        withState { state, _ in
            state.seeks.end(finished: false)
            release(&state)
            state.queue.items.removeAll()
            state.queue.played.removeAll()
            state.time = 0
        }
    }

    /// Lets the current item's voice go, changes the queue with `change`, and plays the item then current from its
    /// start if the queue was playing. A seek waiting to be heard ends unfinished.
    private func changeCurrentItem(_ state: inout State, _ events: inout [Event], _ change: (inout QueueState) -> Void) {
        let wasPlaying = state.isPlaying
        state.seeks.end(finished: false)
        release(&state)
        change(&state.queue)
        state.time = 0
        if wasPlaying { _ = start(&state, &events) }
    }
}

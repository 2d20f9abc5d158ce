import FoundationEssentials

/// Moving through the queue and changing it, as `AVQueuePlayer` does, and back through what was played, as
/// `MPMusicPlayerController.skipToPreviousItem()` does.
extension AudioQueuePlayer {
    /// The items played to their end, or skipped with ``advanceToNextItem()``, before ``currentItem``, oldest first:
    /// what ``advanceToPreviousItem()`` goes back through. Items that failed are not among them.
    public var previousItems: [URL] { state.withLock { $0.played.map(\.url) } }

    /// Ends the current item now and goes on with the next, playing if it was playing; the current item joins
    /// ``previousItems``.
    public func advanceToNextItem() {
        withState { state, events in
            guard let current = state.items.first else { return }
            let wasPlaying = state.isPlaying
            state.seeks.end(finished: false)
            state.release()
            state.items.removeFirst()
            state.played.append(current)
            state.time = 0
            state.isPlaying = false
            if wasPlaying { _ = start(&state, &events) }
        }
    }

    /// Goes back to the last of ``previousItems``, from its start, playing if it was playing; the current item stays
    /// next. Does nothing when no item was played before: the current one is the first.
    ///
    /// After a queue ran out, it brings back its last item, paused.
    public func advanceToPreviousItem() {
        withState { state, events in
            guard let previous = state.played.popLast() else { return }
            let wasPlaying = state.isPlaying
            state.seeks.end(finished: false)
            state.release()
            state.insert(previous.url, duration: previous.duration, at: 0)
            state.time = 0
            state.isPlaying = false
            if wasPlaying { _ = start(&state, &events) }
        }
    }

    /// Inserts `url` after `item` (at the end when `item` is nil or not in the queue).
    ///
    /// - Throws: ``AudioFileError`` when `url` is not readable audio; the queue is then unchanged.
    public func insert(_ url: URL, after item: URL?) throws(AudioFileError) {
        let duration = try Self.check(url, cache: cache)
        withState { state, events in
            let position = item.flatMap { item in state.items.firstIndex { $0.url == item } }.map { $0 + 1 }
                ?? state.items.count
            state.insert(url, duration: duration, at: position)
            // The decoder has read past the insertion point: restart it where the listener is.
            if position < state.decoded { restart(&state, &events) }
        }
        watchDownloads(of: [url])
    }

    /// Removes every occurrence of `url`, from the queue and from ``previousItems``; removing the current item
    /// advances to the next.
    public func remove(_ url: URL) {
        withState { state, events in
            state.played.removeAll { $0.url == url }
            let wasCurrent = state.items.first?.url == url
            let decodedRemoved = state.items.prefix(state.decoded).dropFirst().contains { $0.url == url }
            if wasCurrent {
                let wasPlaying = state.isPlaying
                state.seeks.end(finished: false)
                state.release()
                state.time = 0
                state.items.removeAll { $0.url == url }
                state.isPlaying = false
                if wasPlaying { _ = start(&state, &events) }
                return
            }
            state.items.removeAll { $0.url == url }
            if decodedRemoved { restart(&state, &events) }
        }
    }

    /// Empties the queue, and ``previousItems``, and stops.
    public func removeAllItems() {
        withState { state, _ in
            state.seeks.end(finished: false)
            state.release()
            state.items.removeAll()
            state.played.removeAll()
            state.isPlaying = false
            state.time = 0
        }
    }
}

import FoundationEssentials

/// Moving through the queue and changing it, as `AVQueuePlayer` does, and back through what was played, as
/// `MPMusicPlayerController.skipToPreviousItem()` does.
extension AudioQueuePlayer {
    /// The items played to their end, or skipped with ``advanceToNextItem()``, before ``currentItem``, oldest first:
    /// what ``advanceToPreviousItem()`` goes back through. Items that failed are not among them.
    public var previousItems: [URL] { state.withLock { $0.played.map(\.url) } }

    /// Ends the current item now and goes on with the next, playing if it was playing; the current item joins
    /// ``previousItems`` (and, with ``repeatMode`` all, comes round again at the end). With repeat one, the next item
    /// is the one after the current item, which then repeats.
    public func advanceToNextItem() {
        withState { state, events in
            guard let current = state.items.first else { return }
            let wasPlaying = state.isPlaying
            state.seeks.end(finished: false)
            state.release()
            state.items.removeFirst()
            state.comeRound(current)
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
            state.insert(previous.url, duration: previous.duration, gain: previous.gain, at: 0)
            state.time = 0
            state.isPlaying = false
            if wasPlaying { _ = start(&state, &events) }
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
            let wasPlaying = state.isPlaying
            state.seeks.end(finished: false)
            state.release()
            if !state.items.isEmpty { state.items.removeFirst() }
            if let url, let duration { state.insert(url, duration: duration, at: 0) }
            state.time = 0
            state.isPlaying = false
            if wasPlaying { _ = start(&state, &events) }
        }
        if let url { watchDownloads(of: [url]) }
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

import FoundationEssentials

/// Repeating the current item or the whole queue, as `MPMusicPlayerController.repeatMode` does (`AVQueuePlayer` has
/// no repeat; `AVPlayerLooper` repeats one item).
extension QueuePlayer {
    /// What plays again once it has played, as `MPMusicRepeatMode`.
    public enum RepeatMode: Sendable, Equatable {
        /// Nothing: the queue runs out after its last item.
        case none
        /// The current item, again and again.
        case one
        /// Every item: each that plays to its end (or is skipped) comes round again at the end of the queue, so the
        /// queue never runs out.
        case all
    }

    /// What plays again once it has played: nothing (the default), the current item, or every item.
    ///
    /// A pass of an item repeated is an item of its own, told as any other: ``BasePlayer/Event/itemDidPlayToEnd(_:)`` then
    /// ``BasePlayer/Event/currentItemChanged(_:)`` (to the same item with repeat one), its time from 0; it follows without a gap.
    /// The next pass is in ``items()`` from when the decoder reaches the end of the one playing (a ring, 0.25 s, before
    /// it is heard). Changing the mode while playing applies from the item playing: its next pass queued by repeat one
    /// goes; items already come round by repeat all stay in the queue, and none comes round again.
    public var repeatMode: RepeatMode {
        get { state.withLock { $0.queue.repeatMode } }
        set {
            withState { state, events in
                guard state.queue.repeatMode != newValue else { return }
                state.queue.repeatMode = newValue
                let count = state.queue.items.count
                state.queue.removeRepeatedPasses()
                // A decoder that already queued or read past the item playing asks again, from where the listener is.
                if state.voice != nil, state.queue.items.count != count || state.queue.decoded >= state.queue.items.count { restart(&state, &events) }
            }
        }
    }
}

extension Player.QueueState {
    /// Decoder thread, once it has read the last item it opened to its end: queues that item again as
    /// ``QueuePlayer/repeatMode`` says — right after it for repeat one, at the end for repeat all (once).
    mutating func queueAgainTheLastDecoded() {
        guard decoded > 0, decoded <= items.count else { return }
        let ended = items[decoded - 1]
        switch repeatMode {
        case .none:
            return
        case .one:
            insert(ended.item, at: decoded, queuedBy: .one)
        case .all:
            guard !ended.hasComeRound else { return }
            items[decoded - 1].hasComeRound = true
            insert(ended.item, queuedBy: .all)
        }
    }

    /// With repeat all, `item`, leaving the queue before the decoder read it to its end (skipped), comes round all the
    /// same.
    mutating func comeRound(_ entry: Player.Entry) {
        guard repeatMode == .all, !entry.hasComeRound else { return }
        insert(entry.item, queuedBy: .all)
    }

    /// Takes out the passes repeat one queued after the current item.
    mutating func removeRepeatedPasses() {
        guard items.count > 1 else { return }
        items = [items[0]] + items.dropFirst().filter { $0.queuedBy != .one }
    }
}

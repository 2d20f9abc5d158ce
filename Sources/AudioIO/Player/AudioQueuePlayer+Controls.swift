import FoundationEssentials

/// Each item's gain: the queue's other controls are ``BasePlayer``'s, and apply to the item playing and to every item
/// after it.
extension AudioQueuePlayer {
    /// Plays `item` — each of its entries in the queue and in ``previousItems`` — at a fixed gain in decibels before
    /// ``volume``, −96…+48 (values outside are clamped), as ``AudioPlayer/gain`` does for one file: what brings each
    /// item to one loudness (``AudioLoudness/normalizationGain(toLoudness:truePeakLimit:)``). Items play at 0 dB until
    /// given one; an item not in the queue is left alone.
    ///
    /// The gain holds from the item's first frame to its last: where two items at different gains meet, it changes on
    /// the first frame of the second. Set while the item plays, it is heard within a ring (0.25 s), at once on a device
    /// that queues long.
    public func setGain(_ gain: Float, for item: URL) {
        let gain = PlaybackControls.clamped(gain: gain)
        withState { state, events in
            for index in state.queue.items.indices where state.queue.items[index].url == item { state.queue.items[index].gain = gain }
            for index in state.queue.played.indices where state.queue.played[index].url == item { state.queue.played[index].gain = gain }
            if let reading = state.reading, state.queue.items.contains(where: { $0.token == reading && $0.url == item }) {
                state.decoder?.setGain(gain, forItem: reading)
            }
            if state.queue.items.prefix(state.queue.decoded).contains(where: { $0.url == item }) { restartIfQueuedLong(&state, &events) }
        }
    }
}

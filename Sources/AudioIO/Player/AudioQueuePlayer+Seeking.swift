import FoundationEssentials

/// Seeking within the current item, as ``AudioPlayer`` seeks (`AVPlayer`'s `seek(to:)` family).
extension AudioQueuePlayer {
    /// Moves to `time` seconds into ``currentItem`` (clamped to it), playing on if it was playing; an
    /// ``Event/timeJumped`` tells it. Sample-exact, as ``AudioPlayer/seek(to:toleranceBefore:toleranceAfter:)``; the
    /// tolerances are accepted for code written against `AVPlayer`. Nothing happens when the queue is empty.
    public func seek(to time: TimeInterval, toleranceBefore: TimeInterval = 0, toleranceAfter: TimeInterval = 0) {
        seek(to: time, completion: nil)
    }

    /// Moves to `time` seconds into ``currentItem`` and calls `completionHandler` once the seek is complete, as
    /// ``AudioPlayer/seek(to:toleranceBefore:toleranceAfter:completionHandler:)`` does: true when the new position is
    /// heard (at once while paused), false when superseded by another seek, cancelled by ``cancelPendingSeeks()``,
    /// or cut short by a change of item or a lost device, and false at once when the queue is empty.
    public func seek(
        to time: TimeInterval, toleranceBefore: TimeInterval = 0, toleranceAfter: TimeInterval = 0,
        completionHandler: @escaping @Sendable (_ finished: Bool) -> Void
    ) {
        seek(to: time, completion: completionHandler)
    }

    /// Ends the seek still waiting to be heard, if any: its completion handler is called with false. The position
    /// stays where the seek put it.
    public func cancelPendingSeeks() {
        withState { state, _ in state.seeks.end(finished: false) }
    }

    private func seek(to time: TimeInterval, completion: SeekCompletions.Handler?) {
        withState { state, events in
            guard let item = state.items.first else { return state.seeks.complete(completion, finished: false) }
            state.seeks.end(finished: false)
            let wasPlaying = state.isPlaying
            state.release()
            state.time = min(max(time, 0), item.duration)
            state.isPlaying = false
            if wasPlaying { _ = start(&state, &events) }
            events.append(.timeJumped)
            state.seeks.begin(completion, heardFrom: state.isPlaying ? state.voice : nil)
        }
    }
}

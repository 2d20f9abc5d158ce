import FoundationEssentials

/// The position and seeking, as `AVPlayer`'s `seek(to:)` family.
extension BasePlayer {
    /// Seconds into the file (a queue's current item) of what is heard now: the last frame mixed less what the device
    /// still holds queued. Setting it seeks to that exact frame (clamped to what plays), playing on if it was playing.
    public var currentTime: TimeInterval {
        get { state.withLock { $0.currentTime } }
        set { seek(to: newValue) }
    }

    /// Moves to `time` seconds, playing on if it was playing; an ``Event/timeJumped`` tells it. Nothing happens when
    /// nothing plays (an empty queue).
    ///
    /// Every seek lands on the exact frame — libsndfile positions WAV, CAF, FLAC and Opus sample-exactly —
    /// so it is always within any tolerance given; the tolerances are accepted for code written against
    /// `AVPlayer.seek(to:toleranceBefore:toleranceAfter:)`. A seek still waiting to be heard is superseded (see
    /// ``seek(to:toleranceBefore:toleranceAfter:completionHandler:)``).
    public func seek(to time: TimeInterval, toleranceBefore: TimeInterval = 0, toleranceAfter: TimeInterval = 0) {
        seek(to: time, completion: nil)
    }

    /// Moves to `time` seconds as ``seek(to:toleranceBefore:toleranceAfter:)`` does, and calls `completionHandler` once
    /// the seek is complete, as `AVPlayer.seek(to:completionHandler:)`.
    ///
    /// - Parameters:
    ///   - time: Seconds into the file (a queue's current item), clamped to it.
    ///   - toleranceBefore: Accepted and met: every seek lands on the exact frame.
    ///   - toleranceAfter: Accepted and met, as `toleranceBefore`.
    ///   - completionHandler: Called once, after the player's lock is let go: with true when the new position is heard
    ///     (its first frame played, or at once while paused), with false when the seek was superseded by another,
    ///     cancelled by ``cancelPendingSeeks()``, or cut short by a stop, a change of item or a lost device, and at once
    ///     when nothing plays. The position has moved either way: the file is positioned before `seek` returns, and
    ///     what a seek waits for is its first frame being played. Called on the engine's event thread, or on the thread
    ///     that ended the seek.
    public func seek(
        to time: TimeInterval, toleranceBefore: TimeInterval = 0, toleranceAfter: TimeInterval = 0,
        completionHandler: @escaping @Sendable (_ finished: Bool) -> Void
    ) {
        seek(to: time, completion: completionHandler)
    }

    /// Ends the seek still waiting to be heard, if any: its completion handler is called with false, as
    /// `AVPlayer.cancelPendingSeeks()` does. The position stays where the seek put it.
    public func cancelPendingSeeks() {
        withState { state, _ in state.seeks.end(finished: false) }
    }

    private func seek(to time: TimeInterval, completion: SeekCompletions.Handler?) {
        withState { state, events in
            guard seekTarget(time, in: state) != nil else { return state.seeks.complete(completion, finished: false) }
            state.seeks.end(finished: false)
            move(&state, &events, to: time, playing: state.isPlaying)
            events.append(.timeJumped)
            currentItem(in: state)?.item.tell(.timeJumped)
            state.seeks.begin(completion, heardFrom: state.isPlaying ? state.voice : nil)
        }
    }
}

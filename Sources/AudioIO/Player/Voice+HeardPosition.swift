import FoundationEssentials

extension Voice {
    /// Seconds into the item of what is heard now, for a player whose voice this is: the position of the last frame
    /// mixed, less what `engine` still holds queued in front of it at `rate` (a sound server may hold a second or
    /// more), never before `start`, where the voice started; `start` until the voice has started. While it plays,
    /// never before a position it reported in the same item (``ForwardPosition``).
    func heardPosition(on engine: StreamEngine?, isPlaying: Bool, rate: Float, startedAt start: TimeInterval) -> TimeInterval {
        guard let engine, hasStarted.load(ordering: .acquiring) else { return start }
        let (mixed, mixedBefore) = mixedPosition
        guard isPlaying else { return mixed }
        // What the device holds of it now: frames mixed less frames heard by now. (The queue the last write saw is up to
        // a period old, a long buffer's period apart.)
        let held = max(0, mixedBefore - engine.frame(at: engine.deviceCurrentTime))
        let queued = Double(held) / engine.sampleRate * Double(rate)
        let heard = max(mixed - queued, min(start, mixed))
        // A queue that grew (a sound server's, when another client starts) must not move the position back.
        return reportedPosition.report(heard, item: currentItem.load(ordering: .acquiring))
    }
}

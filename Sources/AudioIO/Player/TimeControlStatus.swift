extension AudioPlayer {
    /// Whether playback is under way, as `AVPlayer.TimeControlStatus`: paused, asked to play but waiting (and why), or
    /// playing. ``AudioQueuePlayer`` has the same.
    public enum TimeControlStatus: Equatable, Sendable {
        /// Not playing: not started yet, paused, stopped, or played to the end.
        case paused
        /// Asked to play, and waiting before the first frame is heard, for the reason given.
        case waitingToPlayAtSpecifiedRate(WaitingReason)
        /// Playing: the position moves at the rate.
        case playing
    }

    /// Why a player asked to play does not play yet, as `AVPlayer.WaitingReason`.
    public enum WaitingReason: Equatable, Sendable {
        /// ``AudioPlayer/play(atTime:)`` was given a time the device clock has not reached yet.
        case scheduledStart
    }
}

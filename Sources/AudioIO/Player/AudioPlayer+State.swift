import FoundationEssentials

extension AudioPlayer {
    /// What an ``AudioPlayer`` adds to a player's state: its file's loops, the range played, and an address's loading.
    struct FileState {
        /// ``AudioPlayer/forwardPlaybackStartTime`` and ``AudioPlayer/forwardPlaybackEndTime``.
        var range = PlaybackRange()
        /// Passes of a loop heard to their end: a new voice (after a seek or a lost device) goes on counting from
        /// there instead of playing ``AudioPlayer/numberOfLoops`` loops again.
        var passesHeard = 0
        /// The pass of a loop the voice was in at the last tick: one further on is a loop starting over, a time jump.
        var passSeen = 0
        /// Whether ``BasePlayer/Event/started`` was sent since the last stop or finish: a seek, a resume or a new
        /// voice at the position heard goes on playing, it does not start again.
        var startWasReported = false
        /// Whether reading the file failed part-way.
        var decodeFailed = false
        /// For an address: whether its header has downloaded (or failed to).
        var load = RemoteLoad.loaded
    }

    /// Hands `events` to the delegate, outside the lock.
    func tell(_ events: [Event]) {
        guard let delegate else { return }
        for event in events {
            switch event {
            case .finishedPlaying(let successfully): delegate.audioPlayerDidFinishPlaying(self, successfully: successfully)
            case .decodeError(let error): delegate.audioPlayerDecodeErrorDidOccur(self, error: error)
            case .timeControlStatusChanged(let status): delegate.audioPlayerTimeControlStatusDidChange(self, to: status)
            case .rateChanged(let rate): delegate.audioPlayerRateDidChange(self, to: rate)
            case .timeJumped: delegate.audioPlayerTimeDidJump(self)
            case .statusChanged, .started, .playbackStalled, .playbackResumed, .currentItemChanged, .itemDidPlayToEnd,
                 .itemDidFailToPlayToEnd, .timedMetadataChanged: break
            }
        }
    }
}

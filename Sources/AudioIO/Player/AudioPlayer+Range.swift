import FoundationEssentials

/// The part of the file played, as `AVPlayerItem.forwardPlaybackEndTime` bounds it, with a start too: what a listener
/// learning a language or transcribing repeats.
extension AudioPlayer {
    /// Seconds into the file where the part played starts, 0 (the default) … ``duration``: where playback starts after
    /// playing to the end, and where each of ``numberOfLoops`` starts over, to the frame.
    ///
    /// Setting it while the position is outside the range moves the position to it (an ``BasePlayer/Event/timeJumped`` while
    /// prepared); inside, playback goes on from where it is. A seek may still go anywhere in the file: what follows the
    /// range's end is not played. Negative values are 0, and a value that is not a number changes nothing.
    public var forwardPlaybackStartTime: TimeInterval {
        get { state.withLock { $0.file.range.start } }
        set {
            guard !newValue.isNaN else { return }
            withState { state, events in setRange(&state, &events, start: newValue, end: state.file.range.end) }
        }
    }

    /// Seconds into the file where playback ends, as `AVPlayerItem.forwardPlaybackEndTime`; nil (the default) plays to
    /// the end of the file. Playback reaching it has played to the end: a loop starts over from
    /// ``forwardPlaybackStartTime`` without a gap, the last pass finishes (``BasePlayer/Event/finishedPlaying(successfully:)``). It
    /// ends on the frame, the last played being the one before `forwardPlaybackEndTime` × the file's rate.
    ///
    /// A time before the start is the start (a range of nothing: play finishes at once); one past ``duration`` is the
    /// file's end. Setting it while the position is at or past it moves the position to the range's start.
    public var forwardPlaybackEndTime: TimeInterval? {
        get { state.withLock { $0.file.range.end } }
        set {
            guard newValue.map({ !$0.isNaN }) ?? true else { return }
            withState { state, events in setRange(&state, &events, start: state.file.range.start, end: newValue) }
        }
    }

    /// Sets the range from `start` to `end`, moving a position outside it to its start, and goes on with a new voice
    /// when one was prepared, since the decoder reads the range it was given.
    private func setRange(_ state: inout State, _ events: inout [Event], start: TimeInterval, end: TimeInterval?) {
        // An address's length is not known before its header is here: the decoder keeps the range within the file.
        let length = duration > 0 ? duration : .infinity
        let start = min(max(start, 0), length)
        let range = PlaybackRange(start: start, end: end.map { min(max($0, start), length) })
        guard range != state.file.range else { return }
        state.file.range = range
        let position = state.currentTime
        let isInside = position >= range.start && position < (range.end ?? .infinity)
        let target = isInside ? position : range.start
        if state.voice != nil {
            move(&state, &events, to: target, playing: state.isPlaying)
            if !isInside { events.append(.timeJumped) }
        } else {
            state.time = target
        }
    }
}

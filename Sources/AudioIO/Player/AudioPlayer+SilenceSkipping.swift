import FoundationEssentials

extension AudioPlayer {
    /// Whether pauses are shortened, as ``silenceSkipping`` says: a stretch of silence of at least its minimum is cut
    /// to a short gap, its ends crossfaded (see ``SilenceSkipping``). Off by default. May be changed at any time,
    /// also while playing, with or without ``enableRate``, and with loops.
    ///
    /// The player's time stays the file's: ``currentTime``, seeks, time observers and ``play(atTime:)`` mean the same
    /// seconds of the file as without it; a shortened pause is crossed, not played. ``skippedSilenceDuration`` says
    /// how much has been left out.
    public var skipsSilence: Bool {
        get { state.withLock { $0.controls.skipsSilence } }
        set {
            withState { state, events in
                guard state.controls.skipsSilence != newValue else { return }
                state.controls.setSkipsSilence(newValue, decoder: state.decoder)
                restartIfQueuedLong(&state, &events)
            }
        }
    }

    /// How pauses are shortened while ``skipsSilence`` is on: the shortest pause shortened, what is left of it, and the
    /// threshold, relative to the file's own level. A change applies from the next ``prepareToPlay()`` or seek.
    public var silenceSkipping: SilenceSkipping {
        get { state.withLock { $0.controls.silenceSkipping } }
        set { state.withLock { $0.controls.silenceSkipping = newValue } }
    }

    /// Seconds of the file left out as silence since playback last started (from the start, or from where ``stop()``
    /// left it), up to what has been mixed for the device (which may hold a little more queued, as
    /// ``currentTime`` allows for); seeks do not reset it, and it keeps its value once playback ends or stops, until
    /// it starts again. 0 without ``skipsSilence``.
    public var skippedSilenceDuration: TimeInterval {
        state.withLock { $0.skippedSilence }
    }
}

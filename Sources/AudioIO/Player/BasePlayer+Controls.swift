import FoundationEssentials

/// What a listener sets on a player: volume and fades, pan, speed, silence skipping and meters. The settings are
/// ``PlaybackControls``; these members hand them to the voice and decoder playing.
extension BasePlayer {
    /// Linear gain, 0…1 (values outside are clamped), independent of the system volume.
    public var volume: Float {
        get { state.withLock { $0.controls.volume } }
        set { setVolume(newValue, fadeDuration: 0) }
    }

    /// Moves ``volume`` to `volume` linearly over `fadeDuration` seconds (0 = at once); a fade goes on across a queue's
    /// items. With a long I/O buffer (see ``AudioSession/preferredIOBufferDuration``), a change at once is heard at
    /// once, and a fade starts once what the device holds queued has played.
    public func setVolume(_ volume: Float, fadeDuration: TimeInterval) {
        withState { state, events in
            state.controls.setVolume(volume, fadeDuration: fadeDuration, voice: state.voice, engine: state.engine)
            if fadeDuration <= 0 { restartIfQueuedLong(&state, &events) }
        }
    }

    /// Balance, −1 (left only) … 0 (both at unity) … +1 (right only): the left channel's gain is
    /// min(1, 1 − pan), the right's min(1, 1 + pan). A mono file plays on both channels.
    public var pan: Float {
        get { state.withLock { $0.controls.pan } }
        set { state.withLock { $0.controls.setPan(newValue, voice: $0.voice) } }
    }

    /// Playback speed, 0.25…4 (clamped; `AVAudioPlayer` allows 0.5…2, `AVPlayer` more), changed by
    /// ``audioTimePitchAlgorithm``. An ``AudioPlayer``'s applies only with ``AudioPlayer/enableRate``; a ``Player``
    /// can always change speed, and at 1 its samples pass unchanged. Set while playing, it is heard within a ring
    /// (0.25 s), at once on a device that queues long. A change is an ``Event/rateChanged(_:)``.
    ///
    /// Setting 0 pauses, as it does `AVPlayer`: the speed stays what it was, for `play()` to resume at. Setting another
    /// value plays a ``Player``, as it does `AVPlayer` (an ``AudioPlayer`` only changes speed, as `AVAudioPlayer`). A
    /// value that is not a number, or below 0, changes nothing: nothing here plays backwards.
    public var rate: Float {
        get { state.withLock { $0.controls.rate } }
        set { if changeRate(to: newValue) { startPlaying() } }
    }

    /// Sets the speed as ``rate`` does; returns whether playing should start (a ``Player`` given a rate while paused).
    func changeRate(to newValue: Float) -> Bool {
        guard !newValue.isNaN, newValue >= 0 else { return false }
        return withState { state, events in
            if newValue == 0 {
                _ = pause(&state, &events)
                return false
            }
            // Where the listener is, reckoned at the rate what is queued was played at.
            let heard = state.currentTime
            let old = state.controls.rate
            state.controls.setRate(newValue, decoder: state.decoder)
            if state.controls.enableRate, state.controls.rate != old { restartIfQueuedLong(&state, &events, from: heard) }
            return startsWhenRateIsSet && !state.isPlaying
        }
    }

    /// How ``rate`` changes the speed, as `AVPlayerItem.audioTimePitchAlgorithm`: ``AudioTimePitchAlgorithm/timeDomain``
    /// (the default: pitch kept, SoundTouch tuned for speech) or ``AudioTimePitchAlgorithm/varispeed`` (pitch follows
    /// the speed, libsoxr). May be changed at any time: while prepared, playback goes on from the position heard with
    /// the new one.
    public var audioTimePitchAlgorithm: AudioTimePitchAlgorithm {
        get { state.withLock { $0.controls.pitchAlgorithm } }
        set {
            withState { state, events in
                guard state.controls.pitchAlgorithm != newValue else { return }
                state.controls.pitchAlgorithm = newValue
                if state.voice != nil, state.controls.enableRate { restart(&state, &events) }
            }
        }
    }

    /// Whether pauses are shortened, as ``silenceSkipping`` says: a stretch of silence of at least its minimum is cut
    /// to a short gap, its ends crossfaded (see ``SilenceSkipping``). Off by default. May be changed at any time, also
    /// while playing, and is heard at once, as a change of ``rate`` is.
    ///
    /// The player's time stays the file's (a queue's, each item's): ``currentTime``, seeks, time observers and
    /// ``AudioPlayer/play(atTime:)`` mean the same seconds as without it; a shortened pause is crossed, not played.
    /// ``skippedSilenceDuration`` says how much has been left out.
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
    /// threshold, relative to the file's own level. A change applies when a voice is next made (a prepare, a seek).
    public var silenceSkipping: SilenceSkipping {
        get { state.withLock { $0.controls.silenceSkipping } }
        set { state.withLock { $0.controls.silenceSkipping = newValue } }
    }

    /// Seconds left out as silence, up to what has been mixed for the device (which may hold a little more queued, as
    /// ``currentTime`` allows for); seeks do not reset it. An ``AudioPlayer``'s counts since playback last started (from
    /// the start, or from where ``AudioPlayer/stop()`` left it) and keeps its value once playback ends or stops, until
    /// it starts again; a queue's counts since it was made. 0 without ``skipsSilence``.
    public var skippedSilenceDuration: TimeInterval {
        state.withLock { $0.skippedSilence }
    }

    /// Whether the render thread measures levels for ``updateMeters()``; off by default, as it costs a little on the
    /// render thread.
    public var isMeteringEnabled: Bool {
        get { state.withLock { $0.controls.isMeteringEnabled } }
        set { state.withLock { $0.controls.setMetering(newValue, voice: $0.voice) } }
    }

    /// Takes the levels of everything heard since the previous call for ``averagePower(forChannel:)`` and
    /// ``peakPower(forChannel:)``, one for each channel of the file heard (a queue's item: the later one, when the call
    /// spans two); silence if nothing played. They are the file's channels after ``volume`` (fades included); ``pan``
    /// shows in a channel heard on one side of a stereo device only (a stereo file's two; the left and right ones of a
    /// 5.1 file mixed down), not in one heard on both (mono, a centre). Calls more than about 5 s apart lose nothing
    /// either: what the first of them cannot take comes with the next.
    public func updateMeters() {
        state.withLock { state in
            let channels = meteredChannels(in: state)
            // Up to what is heard, not what is mixed: a long buffer holds half a second or more between the two. A
            // queue's times start over with each item: there the voice's own position says what was mixed.
            let heard = channels > 0 ? state.currentTime : nil
            state.controls.updateMeters(from: state.voice, fileChannels: channels, heardUpTo: heard)
        }
    }

    /// Peak level of `channel` (0-based, the file's channels) at the last ``updateMeters()``, in dBFS: 0 is full
    /// scale, −160 silence (also for a channel that does not exist).
    public func peakPower(forChannel channel: Int) -> Float {
        state.withLock { $0.controls.peakPower(forChannel: channel) }
    }

    /// Average (RMS) level of `channel` at the last ``updateMeters()``, in dBFS, −160…0.
    public func averagePower(forChannel channel: Int) -> Float {
        state.withLock { $0.controls.averagePower(forChannel: channel) }
    }
}

import FoundationEssentials

/// Volume, pan, rate, silence skipping and meters, as ``AudioPlayer`` has them, and each item's gain (`AVQueuePlayer` inherits them from `AVPlayer`): they
/// apply to the item playing and to every item after it. The settings themselves are ``PlaybackControls``, which
/// both players hold; these members only hand them the queue's voice.
extension AudioQueuePlayer {
    /// Linear gain, 0…1 (clamped), as ``AudioPlayer/volume``.
    public var volume: Float {
        get { state.withLock { $0.controls.volume } }
        set { setVolume(newValue, fadeDuration: 0) }
    }

    /// Moves ``volume`` to `volume` (0…1) linearly over `fadeDuration` seconds (0 = at once); a fade goes on
    /// across items.
    public func setVolume(_ volume: Float, fadeDuration: TimeInterval) {
        withState { state, events in
            state.controls.setVolume(volume, fadeDuration: fadeDuration, voice: state.voice, engine: state.engine)
            if fadeDuration <= 0 { restartIfQueuedLong(&state, &events) }
        }
    }

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
            for index in state.items.indices where state.items[index].url == item { state.items[index].gain = gain }
            for index in state.played.indices where state.played[index].url == item { state.played[index].gain = gain }
            if let reading = state.reading, state.items.contains(where: { $0.token == reading && $0.url == item }) {
                state.decoder?.setGain(gain, forItem: reading)
            }
            if state.items.prefix(state.decoded).contains(where: { $0.url == item }) { restartIfQueuedLong(&state, &events) }
        }
    }

    /// Balance, −1 (left only) … +1 (right only), as ``AudioPlayer/pan``; a mono item plays on both channels.
    public var pan: Float {
        get { state.withLock { $0.controls.pan } }
        set { state.withLock { $0.controls.setPan(newValue, voice: $0.voice) } }
    }

    /// Playback speed, 0.25…4 (clamped), changed by ``audioTimePitchAlgorithm``, heard within a ring (0.25 s) when
    /// set while playing, at once on a device that queues long (as ``AudioPlayer/rate``). There is no `enableRate`:
    /// the queue can always change speed, and at 1 its samples pass unchanged. A change is an
    /// ``Event/rateChanged(_:)``.
    ///
    /// Setting 0 pauses, as it does `AVPlayer`; otherwise, unlike `AVPlayer`'s, setting it does not start the queue:
    /// ``play()`` does, and a paused queue resumes at the speed last set other than 0. A value that is not a number
    /// changes nothing; a negative one is clamped to 0.25.
    public var rate: Float {
        get { state.withLock { $0.controls.rate } }
        set {
            withState { state, events in
                if newValue == 0 { return _ = Self.pause(&state) }
                // Where the listener is, reckoned at the rate what is queued was played at.
                let heard = state.currentTime
                let old = state.controls.rate
                state.controls.setRate(newValue, decoder: state.decoder)
                if state.controls.rate != old { restartIfQueuedLong(&state, &events, from: heard) }
            }
        }
    }

    /// How ``rate`` changes the speed, as ``AudioPlayer/audioTimePitchAlgorithm``: pitch kept
    /// (``AudioTimePitchAlgorithm/timeDomain``, the default) or following the speed
    /// (``AudioTimePitchAlgorithm/varispeed``), for every item. A change while an item plays is heard from the position
    /// heard.
    public var audioTimePitchAlgorithm: AudioTimePitchAlgorithm {
        get { state.withLock { $0.controls.pitchAlgorithm } }
        set {
            withState { state, events in
                guard state.controls.pitchAlgorithm != newValue else { return }
                state.controls.pitchAlgorithm = newValue
                if state.voice != nil { restart(&state, &events) }
            }
        }
    }

    /// Whether pauses are shortened, as ``AudioPlayer/skipsSilence``: in every item, the queue's time staying each
    /// item's. Off by default; may be changed while playing, and is heard at once, as a change of ``rate`` is.
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

    /// How pauses are shortened while ``skipsSilence`` is on, as ``AudioPlayer/silenceSkipping``; a change applies when
    /// playback next starts from scratch (or after an edit of the queue).
    public var silenceSkipping: SilenceSkipping {
        get { state.withLock { $0.controls.silenceSkipping } }
        set { state.withLock { $0.controls.silenceSkipping = newValue } }
    }

    /// Seconds of the items left out as silence since the queue was made, up to what has been mixed for the device.
    public var skippedSilenceDuration: TimeInterval {
        state.withLock { state in
            state.skippedBefore + (state.voice?.skipped ?? 0)
        }
    }

    /// Whether levels are measured for ``updateMeters()``; off by default, as ``AudioPlayer/isMeteringEnabled``.
    public var isMeteringEnabled: Bool {
        get { state.withLock { $0.controls.isMeteringEnabled } }
        set { state.withLock { $0.controls.setMetering(newValue, voice: $0.voice) } }
    }

    /// Takes the levels heard since the previous call, as ``AudioPlayer/updateMeters()`` does, one for each channel
    /// of the item heard (the later one, when the call spans two items); −160 everywhere if nothing played.
    public func updateMeters() {
        // Nothing heard reads −160 on every channel, however many the levels have: no item's count is needed.
        state.withLock { $0.controls.updateMeters(from: $0.voice, fileChannels: 0) }
    }

    /// Peak level of the item's `channel` (0-based) at the last ``updateMeters()``, in dBFS, −160…0 (−160 for a
    /// channel that does not exist).
    public func peakPower(forChannel channel: Int) -> Float {
        state.withLock { $0.controls.peakPower(forChannel: channel) }
    }

    /// Average (RMS) level of the item's `channel` at the last ``updateMeters()``, in dBFS, −160…0.
    public func averagePower(forChannel channel: Int) -> Float {
        state.withLock { $0.controls.averagePower(forChannel: channel) }
    }
}

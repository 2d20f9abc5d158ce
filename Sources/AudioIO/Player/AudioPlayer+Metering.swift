extension AudioPlayer {
    /// Whether the render thread measures levels for ``updateMeters()``; off by default, as it costs a
    /// little on the render thread.
    public var isMeteringEnabled: Bool {
        get { state.withLock { $0.isMeteringEnabled } }
        set {
            state.withLock { state in
                state.isMeteringEnabled = newValue
                state.voice?.isMeteringEnabled.store(newValue, ordering: .relaxed)
            }
        }
    }

    /// Takes the levels of everything heard since the previous call for ``averagePower(forChannel:)`` and
    /// ``peakPower(forChannel:)``, one for each of the file's ``numberOfChannels`` channels; silence if nothing
    /// played. They are the file's channels after ``volume`` (fades included); ``pan`` shows in a channel heard on
    /// one side of a stereo device only (a stereo file's two; the left and right ones of a 5.1 file mixed down),
    /// not in one heard on both (mono, a centre). Calls more than about 5 s apart lose nothing either: what the
    /// first of them cannot take comes with the next.
    public func updateMeters() {
        state.withLock { state in
            state.levels = state.voice.map { state.meter.take(from: $0, fileChannels: numberOfChannels) }
                ?? LevelAccumulator(channelCount: numberOfChannels).levels
        }
    }

    /// Peak level of `channel` (0-based, the file's channels) at the last ``updateMeters()``, in dBFS: 0 is full
    /// scale, −160 silence (also for a channel that does not exist).
    public func peakPower(forChannel channel: Int) -> Float {
        state.withLock { state in
            state.levels.peak.indices.contains(channel) ? Float(state.levels.peak[channel]) : Float(AudioLevels.floor)
        }
    }

    /// Average (RMS) level of `channel` at the last ``updateMeters()``, in dBFS, −160…0.
    public func averagePower(forChannel channel: Int) -> Float {
        state.withLock { state in
            state.levels.average.indices.contains(channel) ? Float(state.levels.average[channel]) : Float(AudioLevels.floor)
        }
    }
}

extension AudioRecorder {
    /// Whether the capture thread measures levels for ``updateMeters()``; off by default, as it costs a
    /// little on the capture thread. The whole recording's levels (``summary``) are measured regardless.
    public var isMeteringEnabled: Bool {
        get { state.withLock { $0.isMeteringEnabled } }
        set {
            state.withLock { state in
                state.isMeteringEnabled = newValue
                state.tap?.isMeteringEnabled.store(newValue, ordering: .relaxed)
            }
        }
    }

    /// Takes the levels of everything recorded since the previous call (in the file's channels, before
    /// Opus encoding) for ``averagePower(forChannel:)`` and ``peakPower(forChannel:)``; silence if
    /// nothing was.
    public func updateMeters() {
        state.withLock { state in
            state.levels = state.tap?.takeLevels() ?? LevelAccumulator(channelCount: settings.channelCount).levels
        }
    }

    /// Peak level of `channel` (0-based, the file's channels) at the last ``updateMeters()``, in dBFS:
    /// 0 is full scale, −160 silence (also for a channel that does not exist).
    public func peakPower(forChannel channel: Int) -> Float {
        state.withLock { $0.levels.peakPower(forChannel: channel) }
    }

    /// Average (RMS) level of `channel` at the last ``updateMeters()``, in dBFS, −160…0.
    public func averagePower(forChannel channel: Int) -> Float {
        state.withLock { $0.levels.averagePower(forChannel: channel) }
    }
}

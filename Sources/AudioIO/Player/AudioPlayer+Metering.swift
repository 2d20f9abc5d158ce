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

    /// Takes the levels of everything played since the previous call (after volume and pan) for
    /// ``averagePower(forChannel:)`` and ``peakPower(forChannel:)``; silence if nothing played. Calls
    /// more than about 5 s apart lose nothing either: what the first of them cannot take comes with the next.
    public func updateMeters() {
        state.withLock { state in
            let channels = state.voice?.channelCount ?? state.engine?.configuration.channelCount ?? 2
            var frames = 0
            var peak: [Float] = [0, 0]
            var squares: [Double] = [0, 0]
            while let record = state.voice?.levels.pop() {
                frames += record.frames
                peak[0] = max(peak[0], record.peak.0)
                peak[1] = max(peak[1], record.peak.1)
                squares[0] += record.squareSum.0
                squares[1] += record.squareSum.1
            }
            let count = Double(max(frames, 1))
            state.levels = AudioLevels(
                peak: (0..<channels).map { AudioLevels.decibels(Double(peak[min($0, 1)])) },
                average: (0..<channels).map { AudioLevels.decibels((squares[min($0, 1)] / count).squareRoot()) })
        }
    }

    /// Peak level of `channel` (0-based, device channels) at the last ``updateMeters()``, in dBFS: 0 is full
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

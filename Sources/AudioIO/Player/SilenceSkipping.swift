import FoundationEssentials

/// How a player shortens pauses while ``BasePlayer/skipsSilence`` is on: a stretch where every sample of every
/// channel stays below ``threshold`` for at least ``minimumDuration`` is cut down to ``keptDuration``, its two ends
/// joined by a 10 ms crossfade, so that no click is heard and speech keeps its rhythm.
///
/// After ExoPlayer's `SilenceSkippingAudioProcessor` (minimum silence duration, padding, threshold), with the threshold
/// relative to the audio's own level rather than absolute: a quiet recording and a loud one lose the same pauses.
/// Durations are as heard: at ``BasePlayer/rate`` 2, a pause of 1 s in the file is heard as 0.5 s.
public struct SilenceSkipping: Equatable, Sendable {
    /// Pauses heard at least this long, in seconds, are shortened; 0.1…10 (clamped).
    public var minimumDuration: TimeInterval
    /// What is left of a pause once shortened, in seconds: its first half, a crossfade, its last half; 0.03 to
    /// ``minimumDuration`` less 0.03 (clamped).
    public var keptDuration: TimeInterval
    /// The level below which a sample is silence, in dB relative to ``referenceLevel``: −60…0 (clamped).
    public var threshold: Double
    /// The audio's level the threshold is relative to, in dBFS: its average (RMS) level over the whole file, as
    /// ``AudioLevels/average`` and `sox stats` report it (the largest channel's, for several). `nil`: the player
    /// measures the average of what it has decoded so far, and skips nothing in the first second.
    public var referenceLevel: Double?

    /// The settings: by default, pauses of 0.4 s or more shortened to 0.2 s, silence 26 dB below the average level.
    public init(minimumDuration: TimeInterval = 0.4, keptDuration: TimeInterval = 0.2, threshold: Double = -26, referenceLevel: Double? = nil) {
        self.minimumDuration = minimumDuration
        self.keptDuration = keptDuration
        self.threshold = threshold
        self.referenceLevel = referenceLevel
    }

    /// The seconds of the crossfade that joins the two ends of a shortened pause.
    static let crossfade: TimeInterval = 0.01

    /// The settings in their ranges.
    var clamped: SilenceSkipping {
        let minimum = min(max(minimumDuration, 0.1), 10)
        return SilenceSkipping(
            minimumDuration: minimum, keptDuration: min(max(keptDuration, 3 * Self.crossfade), minimum - 3 * Self.crossfade),
            threshold: min(max(threshold, -60), 0), referenceLevel: referenceLevel.map { min(max($0, AudioLevels.floor), 0) })
    }
}

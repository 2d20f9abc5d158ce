/// How a player changes speed, as `AVAudioTimePitchAlgorithm` (`AVPlayerItem.audioTimePitchAlgorithm`) says it.
public enum AudioTimePitchAlgorithm: String, Sendable, CaseIterable {
    /// The pitch stays as the speed changes: SoundTouch's time-domain stretching (WSOLA), tuned for speech. What
    /// listening to a lecture faster wants; its cost and its artefacts (a slight roughness, more at 3 or 4 times) grow
    /// with the change.
    case timeDomain
    /// The pitch follows the speed, as a tape played faster: the samples resampled (libsoxr, variable rate). The
    /// cheapest and the cleanest, with no artefact at all; 1.5 times faster is a fifth higher.
    case varispeed
}

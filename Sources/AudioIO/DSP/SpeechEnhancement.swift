/// How speech is cleaned up — ``AudioRecorder/speechEnhancement`` while recording, ``AudioFileConverter``'s
/// `speechEnhancement` after the fact — by webrtc-audio-processing, the module of WebRTC that cleans up a call's
/// microphone: a high-pass filter (rumble and hum under 80 Hz), noise suppression, and automatic gain.
///
/// Noise that keeps its character — a fan, traffic, hiss — is lowered most; other voices (babble) hardly at all,
/// since they are speech too. Measured figures (SNR gain, STOI, PESQ on speech in fan, street and babble noise at 0, 5
/// and 10 dB) are in `Benchmarks/BENCHMARKS.md`.
public struct SpeechEnhancement: Equatable, Sendable {
    /// How hard noise is suppressed: harder removes more noise and more of the speech's detail with it. Each level
    /// is webrtc's policy of the same name; the figure is the most its suppressor lowers any band (its gain floor).
    public enum NoiseSuppression: Int, Equatable, Sendable, CaseIterable {
        /// 6 dB at most.
        case low
        /// 12 dB at most.
        case moderate
        /// 18 dB at most: the default.
        case high
        /// 21 dB at most.
        case veryHigh
    }

    /// How hard noise is suppressed.
    public var noiseSuppression: NoiseSuppression
    /// Whether the level of speech is brought to about −19 dBFS on average (webrtc's adaptive digital gain, 3 dB under
    /// full scale at its peaks, with a limiter so that nothing clips), up or down: a quiet recording becomes loud
    /// enough to hear, a loud one is not pushed into clipping.
    public var adjustsGain: Bool

    /// Noise suppressed at `noiseSuppression`, the gain adjusted when `adjustsGain`.
    public init(noiseSuppression: NoiseSuppression = .high, adjustsGain: Bool = true) {
        self.noiseSuppression = noiseSuppression
        self.adjustsGain = adjustsGain
    }
}

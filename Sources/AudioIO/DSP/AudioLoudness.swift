/// The loudness of a recording as EBU R 128 measures it (ITU-R BS.1770-4, EBU Tech 3341 and 3342): integrated
/// loudness, loudness range and true peak, measured by libebur128 (the true peak oversampled by libsoxr).
///
/// A memo's loudness says how loud it sounds as a whole, which its peak and RMS levels (``AudioLevels``) do not: two
/// recordings with the same peak can sound 10 dB apart. Playing or exporting at a target loudness
/// (``normalizationGain(toLoudness:truePeakLimit:)``) makes memos recorded near and far from the microphone sound
/// alike, as ReplayGain does for music.
public struct AudioLoudness: Equatable, Sendable, Codable {
    /// What ``integrated`` reads when nothing is loud enough to count: silence, or a recording wholly below the
    /// absolute gate of −70 LUFS (ffmpeg's `ebur128` filter reads −70 then too).
    public static let silence = -70.0

    /// Integrated (programme) loudness in LUFS: the gated mean loudness of the whole recording (BS.1770-4), from
    /// ``silence`` (−70) up; −23 is the EBU's broadcast target, −16 a usual one for speech and podcasts.
    public var integrated: Double
    /// Loudness range in LU (EBU Tech 3342): how far the loud and the quiet parts lie apart, 0 or more; a steady
    /// voice reads a few LU, a conversation near and far from the microphone 10 or more.
    public var range: Double
    /// True peak in dBTP: the highest level the signal reaches between its samples as well as at them (4× oversampled
    /// at 48 kHz), over all channels; ``AudioLevels/floor`` (−160) for silence. 0 is full scale, and above it a
    /// converter clips.
    public var truePeak: Double

    /// Creates a loudness from its three measures.
    public init(integrated: Double, range: Double, truePeak: Double) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
    }

    /// The gain in dB that brings the recording to `target` LUFS, lowered so that its true peak stays at or under
    /// `truePeakLimit` dBTP, as ReplayGain limits its gain by the peak: a quiet recording with loud peaks is raised
    /// less than its loudness asks for, never clipped. 0 for silence (``integrated`` at ``silence``): there is nothing
    /// to bring up.
    ///
    /// - Parameters:
    ///   - target: The loudness wanted, in LUFS (e.g. −16).
    ///   - truePeakLimit: The highest true peak allowed after the gain, in dBTP (−1 by default, EBU R 128's limit for
    ///     lossy delivery).
    /// - Returns: A gain in dB: positive raises, negative lowers.
    public func normalizationGain(toLoudness target: Double, truePeakLimit: Double = -1) -> Double {
        guard integrated > Self.silence else { return 0 }
        return min(target - integrated, truePeakLimit - truePeak)
    }
}

/// Why ``AudioSettings`` cannot be written; its `description` says what to use instead.
public enum AudioSettingsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The format can be read but not written.
    case unwritableFormat(AudioFileFormat)
    /// The sample rate is not a positive rate in ``AudioSettings/sampleRates``.
    case sampleRate(Double)
    /// Opus was asked for a rate outside ``AudioSettings/opusSampleRates``.
    case opusSampleRate(Double)
    /// The channel count is outside what the format takes.
    case channelCount(Int, allowed: ClosedRange<Int>, format: AudioFileFormat)
    /// A bit depth was given for Opus, which has none.
    case bitDepthForOpus
    /// A bit rate was given for a PCM format, which has none.
    case bitRateForPCM(AudioFileFormat)
    /// The Opus bit rate is outside what the encoder takes for this channel count.
    case opusBitRate(Int, allowed: ClosedRange<Int>)

    public var description: String {
        switch self {
        case .unwritableFormat(let format):
            "cannot write \(format.rawValue) files; use wav, caf or opus"
        case .sampleRate(let rate):
            "sample rate \(Self.hertz(rate)) Hz is out of range; use \(Self.hertz(AudioSettings.sampleRates.lowerBound)) to \(Self.hertz(AudioSettings.sampleRates.upperBound)) Hz"
        case .opusSampleRate(let rate):
            "Opus takes 8000, 12000, 16000, 24000 or 48000 Hz, not \(Self.hertz(rate)) Hz; use 48000 (other rates are resampled when converting)"
        case .channelCount(let count, let allowed, let format):
            "\(format.rawValue) takes \(allowed.lowerBound) to \(allowed.upperBound) channels, not \(count)"
        case .bitDepthForOpus:
            "Opus has no bit depth; set a bit rate instead (e.g. 32000)"
        case .bitRateForPCM(let format):
            "\(format.rawValue) is uncompressed and has no bit rate; set a bit depth (16, 24 or 32) instead"
        case .opusBitRate(let rate, let allowed):
            "Opus bit rate \(rate) b/s is out of range for these channels; use \(allowed.lowerBound) to \(allowed.upperBound) b/s"
        }
    }

    private static func hertz(_ rate: Double) -> String {
        rate.rounded() == rate && abs(rate) < 1e12 ? String(Int(rate)) : String(rate)
    }
}

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
    /// MP3 was asked for a rate outside ``AudioSettings/mp3SampleRates``.
    case mp3SampleRate(Double)
    /// A bit depth was given that the format cannot hold: any for Vorbis and MP3, 32-bit float for FLAC.
    case bitDepth(AudioSettings.BitDepth, format: AudioFileFormat)
    /// A bit rate was given for FLAC, Vorbis or MP3, which are written at a set quality.
    case bitRateForFixedQuality(AudioFileFormat)
    /// AAC was asked for a rate outside ``AudioSettings/aacSampleRates``.
    case aacSampleRate(Double)
    /// The AAC bit rate is outside what the encoder takes for this rate and channel count.
    case aacBitRate(Int, allowed: ClosedRange<Int>)

    public var description: String {
        switch self {
        case .unwritableFormat(let format):
            "cannot write \(format.rawValue) files; use "
                + AudioFileFormat.allCases.filter(\.isWritable).map(\.rawValue).joined(separator: ", ")
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
        case .mp3SampleRate(let rate):
            "MP3 takes " + AudioSettings.mp3SampleRates.map { Self.hertz($0) }.joined(separator: ", ")
                + " Hz, not \(Self.hertz(rate)) Hz; use 48000 or 44100"
        case .bitDepth(let depth, let format) where format == .flac:
            "FLAC holds 16- or 24-bit samples, not \(depth.rawValue)-bit float; use 16 or 24"
        case .bitDepth(_, let format):
            "\(format.rawValue) has no bit depth; leave it out"
        case .bitRateForFixedQuality(let format):
            "\(format.rawValue) is written at a set quality and takes no bit rate; only Opus and AAC do"
        case .aacSampleRate(let rate):
            "AAC takes " + AudioSettings.aacSampleRates.map { Self.hertz($0) }.joined(separator: ", ")
                + " Hz, not \(Self.hertz(rate)) Hz; use 48000 or 44100"
        case .aacBitRate(let rate, let allowed):
            "AAC bit rate \(rate) b/s is out of range for this rate and these channels; use \(allowed.lowerBound) to \(allowed.upperBound) b/s"
        }
    }

    private static func hertz(_ rate: Double) -> String {
        rate.rounded() == rate && abs(rate) < 1e12 ? String(Int(rate)) : String(rate)
    }
}

/// How a file is written: container and codec, sample rate, channels, and the bit depth (PCM) or bit rate (Opus, AAC).
///
/// The counterpart of the settings dictionary that `AVAudioRecorder` takes: ``format`` is `AVFormatIDKey`
/// (``AudioFileFormat/aac`` for `kAudioFormatMPEG4AAC` in an M4A file), ``sampleRate`` `AVSampleRateKey`, ``channelCount``
/// `AVNumberOfChannelsKey`, ``bitDepth`` `AVLinearPCMBitDepthKey` and ``bitRate`` `AVEncoderBitRateKey`. It is plain data: build one,
/// load a preset (``AudioPreset``) or decode one from JSON, then ``validate()`` it before use;
/// ``AudioFileWriter`` and ``AudioFileConverter`` validate it again themselves.
///
/// In JSON the keys are `format`, `sampleRate`, `channels`, `bitDepth` and `bitRate`; any other key is an error,
/// so that a misspelt key does not silently fall back to a default.
public struct AudioSettings: Equatable, Sendable {
    /// Sample size of PCM formats.
    public enum BitDepth: Int, Codable, Sendable, CaseIterable {
        /// 16-bit signed integers.
        case int16 = 16
        /// 24-bit signed integers.
        case int24 = 24
        /// 32-bit IEEE floating point.
        case float32 = 32
    }

    /// The sample rates Opus encodes, in hertz (RFC 6716 §2).
    public static let opusSampleRates: [Double] = [8000, 12000, 16000, 24000, 48000]
    /// The channel counts accepted for PCM formats.
    public static let pcmChannelCounts = 1...8
    /// The channel counts accepted for Opus: mono and stereo, and 3 to 8 channels in WAV order (5.1 as L R C LFE Ls
    /// Rs), written with Opus' surround mapping (channel mapping family 1) as opusenc writes them.
    public static let opusChannelCounts = 1...8
    /// The sample rates accepted, in hertz.
    public static let sampleRates = 1000.0...768_000.0
    /// The Opus bit rate per channel libsndfile can ask the encoder for, in bits per second.
    public static let opusBitRatePerChannel = 6000...256_000
    /// The highest Opus bit rate for the whole stream, in bits per second (libopus' own limit).
    public static let opusMaximumBitRate = 510_000
    /// The sample rates MP3 (MPEG-1, 2 and 2.5 Layer III) encodes, in hertz.
    public static let mp3SampleRates: [Double] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
    /// The channel counts MP3 takes: mono and stereo.
    public static let mp3ChannelCounts = 1...2
    /// The sample rates AAC encodes, in hertz (the MPEG-4 audio rates FFmpeg's encoder takes).
    public static let aacSampleRates: [Double] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]
    /// The channel counts AAC is written with: mono and stereo (more are mixed down when converting).
    public static let aacChannelCounts = 1...2
    /// The AAC bit rate per channel asked of the encoder, in bits per second: from what still carries speech to what
    /// no one hears apart from the original. An AAC frame holds at most 6 bits per sample and channel, so below
    /// 48 kHz the top is 6 × the rate.
    public static let aacBitRatePerChannel = 16_000...256_000

    /// The container and codec written: one whose ``AudioFileFormat/isWritable`` is true.
    public var format: AudioFileFormat
    /// Frames per second, in whole hertz. Opus takes only ``opusSampleRates``, MP3 only ``mp3SampleRates``, AAC only
    /// ``aacSampleRates``.
    public var sampleRate: Double
    /// Interleaved channels, 1 (mono) or more; see ``pcmChannelCounts`` (also FLAC's and Vorbis'), ``opusChannelCounts``,
    /// ``mp3ChannelCounts`` and ``aacChannelCounts``.
    public var channelCount: Int
    /// Sample size for WAV, CAF, AIFF and FLAC (16 or 24 bits); `nil` means 16-bit. Must be `nil` for Opus, Vorbis,
    /// MP3 and AAC.
    public var bitDepth: BitDepth?
    /// Target bit rate in bits per second, for the whole stream, of Opus (variable bit rate; `nil` means 32 kb/s per
    /// channel, for speech-sized streams) and AAC (average bit rate; `nil` means 64 kb/s per channel, what phones record
    /// speech at). Must be `nil` for the other formats: Vorbis and MP3 are written at a set quality (see
    /// ``AudioFileWriter``).
    public var bitRate: Int?

    /// Creates settings; the defaults describe 16-bit mono WAV at 48 kHz.
    public init(
        format: AudioFileFormat = .wav,
        sampleRate: Double = 48000,
        channelCount: Int = 1,
        bitDepth: BitDepth? = nil,
        bitRate: Int? = nil
    ) {
        self.format = format
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitDepth = bitDepth
        self.bitRate = bitRate
    }

    /// The PCM sample size that is written: ``bitDepth`` or 16-bit.
    public var effectiveBitDepth: BitDepth { bitDepth ?? .int16 }

    /// The bit rate that is written: ``bitRate``, or 32 kb/s per channel for Opus and 64 kb/s per channel for AAC.
    public var effectiveBitRate: Int { bitRate ?? (format == .aac ? 64000 : 32000) * channelCount }

    /// About how many bytes a second of audio takes written so: exactly for PCM (WAV, CAF, AIFF), the bit rate for
    /// Opus and AAC, and for the formats whose size depends on the sound, what speech takes (FLAC half of PCM, Vorbis
    /// and MP3 their quality's typical rate). What a full disk's message says a recording or an import needs.
    package var estimatedBytesPerSecond: Double {
        let pcm = sampleRate * Double(channelCount * effectiveBitDepth.rawValue / 8)
        return switch format {
        case .opus, .aac: Double(effectiveBitRate) / 8
        case .flac: pcm / 2
        case .vorbis: 56000 / 8 * Double(channelCount)
        case .mp3: 95000 / 8 * Double(channelCount)
        default: pcm
        }
    }

    /// The AAC bit rates the encoder takes for this rate and channel count, in bits per second.
    var aacBitRates: ClosedRange<Int> {
        let perChannel = Self.aacBitRatePerChannel
        let top = min(perChannel.upperBound, Int(6 * sampleRate)) * channelCount
        return min(perChannel.lowerBound * channelCount, top)...top
    }

    /// Checks that these settings can be written, throwing the first problem found.
    public func validate() throws(AudioSettingsError) {
        guard format.isWritable else { throw .unwritableFormat(format) }
        guard sampleRate.isFinite, sampleRate.rounded() == sampleRate, Self.sampleRates.contains(sampleRate) else {
            throw .sampleRate(sampleRate)
        }
        switch format {
        case .opus:
            guard Self.opusSampleRates.contains(sampleRate) else { throw .opusSampleRate(sampleRate) }
            guard Self.opusChannelCounts.contains(channelCount) else {
                throw .channelCount(channelCount, allowed: Self.opusChannelCounts, format: format)
            }
            guard bitDepth == nil else { throw .bitDepthForOpus }
            if let bitRate {
                let perChannel = Self.opusBitRatePerChannel
                let allowed = perChannel.lowerBound...min(perChannel.upperBound * channelCount, Self.opusMaximumBitRate)
                guard allowed.contains(bitRate) else { throw .opusBitRate(bitRate, allowed: allowed) }
            }
        case .aac:
            guard Self.aacSampleRates.contains(sampleRate) else { throw .aacSampleRate(sampleRate) }
            guard Self.aacChannelCounts.contains(channelCount) else {
                throw .channelCount(channelCount, allowed: Self.aacChannelCounts, format: format)
            }
            if let bitDepth { throw .bitDepth(bitDepth, format: format) }
            if let bitRate, !aacBitRates.contains(bitRate) { throw .aacBitRate(bitRate, allowed: aacBitRates) }
        case .vorbis, .mp3:
            if format == .mp3, !Self.mp3SampleRates.contains(sampleRate) { throw .mp3SampleRate(sampleRate) }
            let channels = format == .mp3 ? Self.mp3ChannelCounts : Self.pcmChannelCounts
            guard channels.contains(channelCount) else { throw .channelCount(channelCount, allowed: channels, format: format) }
            if let bitDepth { throw .bitDepth(bitDepth, format: format) }
            guard bitRate == nil else { throw .bitRateForFixedQuality(format) }
        default:
            guard Self.pcmChannelCounts.contains(channelCount) else {
                throw .channelCount(channelCount, allowed: Self.pcmChannelCounts, format: format)
            }
            if format == .flac, let bitDepth, bitDepth == .float32 { throw .bitDepth(bitDepth, format: format) }
            guard bitRate == nil else { throw format == .flac ? .bitRateForFixedQuality(format) : .bitRateForPCM(format) }
        }
    }
}

extension AudioSettings: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case format, sampleRate, channels, bitDepth, bitRate
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let additional = decoder.userInfo[Self.additionalKeys] as? [String] ?? []
        try Self.rejectUnknownKeys(in: decoder, allowed: CodingKeys.allCases.map(\.rawValue) + additional)
        self.init(
            format: try container.decode(AudioFileFormat.self, forKey: .format),
            sampleRate: try container.decode(Double.self, forKey: .sampleRate),
            channelCount: try container.decode(Int.self, forKey: .channels),
            bitDepth: try container.decodeIfPresent(BitDepth.self, forKey: .bitDepth),
            bitRate: try container.decodeIfPresent(Int.self, forKey: .bitRate)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(channelCount, forKey: .channels)
        try container.encodeIfPresent(bitDepth, forKey: .bitDepth)
        try container.encodeIfPresent(bitRate, forKey: .bitRate)
    }

    /// A `userInfo` key for the decoder: more keys (`[String]`) that an enclosing object, such as a preset
    /// file, allows beside the settings.
    static let additionalKeys = CodingUserInfoKey(rawValue: "AudioSettings.additionalKeys")!

    /// Throws when the JSON object holds a key outside `allowed`.
    static func rejectUnknownKeys(in decoder: any Decoder, allowed: [String]) throws {
        let all = try decoder.container(keyedBy: AnyCodingKey.self)
        if let unknown = all.allKeys.first(where: { !allowed.contains($0.stringValue) }) {
            throw DecodingError.dataCorruptedError(
                forKey: unknown, in: all,
                debugDescription: "unknown key '\(unknown.stringValue)'; expected \(allowed.joined(separator: ", "))")
        }
    }
}

/// A coding key for any string, used to list the keys a JSON object really has.
struct AnyCodingKey: CodingKey {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

extension AudioSettings {
    /// Settings that keep `file` as it is, as far as `format` allows.
    ///
    /// - Parameters:
    ///   - file: The file to describe.
    ///   - format: The format to write; `nil` keeps the file's own if it is WAV, CAF, Opus, FLAC, or AAC in an MP4 or
    ///     MOV (what a recording is written as), makes ALAC FLAC (lossless, and smaller than WAV), and makes the rest
    ///     WAV: a lossy file is not encoded into its own codec again.
    ///
    /// Rate and channels are the file's. PCM keeps the bit depth (8-bit and lossy sources become 16-bit,
    /// 32- and 64-bit become 32-bit float); FLAC is 24-bit for a source of more than 16 bits, else 16-bit. Opus
    /// keeps about the file's average bit rate when the file is Opus, and takes 48 kHz when the file's rate is one
    /// Opus cannot encode. MP3 and AAC take at most two channels (more are mixed down) and, for a rate they cannot
    /// encode, 44.1 kHz for a multiple of it, else 48 kHz; AAC keeps about the file's average bit rate when the file is
    /// AAC.
    public init(preserving file: AudioFile, as format: AudioFileFormat? = nil) {
        let format = format ?? ([.wav, .caf, .opus, .flac].contains(file.format) || file.isAACInMP4 ? file.format
            : file.format == .alac ? .flac : .wav)
        self.init(format: format, sampleRate: file.sampleRate, channelCount: file.channelCount)
        switch format {
        case .opus:
            if !Self.opusSampleRates.contains(sampleRate) { sampleRate = 48000 }
            if file.format == .opus, file.duration > 0 {
                let measured = Int(Double(file.byteCount * 8) / file.duration)
                let upper = min(Self.opusBitRatePerChannel.upperBound * channelCount, Self.opusMaximumBitRate)
                bitRate = min(max(measured, Self.opusBitRatePerChannel.lowerBound), upper)
            }
        case .vorbis:
            break
        case .mp3, .aac:
            channelCount = min(channelCount, (format == .mp3 ? Self.mp3ChannelCounts : Self.aacChannelCounts).upperBound)
            if !(format == .mp3 ? Self.mp3SampleRates : Self.aacSampleRates).contains(sampleRate) {
                sampleRate = sampleRate.truncatingRemainder(dividingBy: 11025) == 0 ? 44100 : 48000
            }
            if format == .aac, file.format == .aac, file.duration > 0 {
                let measured = Int(Double(file.byteCount * 8) / file.duration)
                bitRate = min(max(measured, aacBitRates.lowerBound), aacBitRates.upperBound)
            }
        case .flac:
            bitDepth = (file.bitDepth ?? 16) > 16 ? .int24 : .int16
        default:
            bitDepth = switch file.bitDepth {
            case 24?: .int24
            case 32?, 64?: .float32
            default: .int16
            }
        }
    }
}

extension AudioSettings {
    /// Settings that keep `file` as it is, as far as `format` allows.
    ///
    /// - Parameters:
    ///   - file: The file to describe.
    ///   - format: The format to write; `nil` keeps the file's own if writable (WAV, CAF, Opus), else WAV.
    ///
    /// Rate and channels are the file's. PCM keeps the bit depth (8-bit and lossy sources become 16-bit,
    /// 32- and 64-bit become 32-bit float). Opus keeps about the file's average bit rate when the file is
    /// Opus, and takes 48 kHz when the file's rate is one Opus cannot encode.
    public init(preserving file: AudioFile, as format: AudioFileFormat? = nil) {
        let format = format ?? (file.format.isWritable ? file.format : .wav)
        self.init(format: format, sampleRate: file.sampleRate, channelCount: file.channelCount)
        switch format {
        case .opus:
            if !Self.opusSampleRates.contains(sampleRate) { sampleRate = 48000 }
            if file.format == .opus, file.duration > 0 {
                let measured = Int(Double(file.byteCount * 8) / file.duration)
                let upper = min(Self.opusBitRatePerChannel.upperBound * channelCount, Self.opusMaximumBitRate)
                bitRate = min(max(measured, Self.opusBitRatePerChannel.lowerBound), upper)
            }
        default:
            bitDepth = switch file.bitDepth {
            case 24?: .int24
            case 32?, 64?: .float32
            default: .int16
            }
        }
    }
}

/// The container and codec of an audio file.
///
/// Every case can be read (``aac``, ``alac``, ``amr`` and ``wma`` through FFmpeg); ``isWritable`` says which ones this
/// library writes (``aac`` as M4A, through FFmpeg).
public enum AudioFileFormat: String, Codable, Sendable, CaseIterable {
    /// RIFF WAVE with PCM or float samples.
    case wav
    /// Apple's Core Audio Format with PCM or float samples.
    case caf
    /// Opus in an Ogg container (RFC 7845), as `opusenc` writes it.
    case opus
    /// FLAC, lossless.
    case flac
    /// Vorbis in an Ogg container.
    case vorbis
    /// MPEG-1/2 Layer III.
    case mp3
    /// AIFF or AIFF-C.
    case aiff
    /// AAC, in an M4A, MP4, MOV or 3GP file (Apple Voice Memos, most phones) or as ADTS (`.aac`). Written as MPEG-4
    /// AAC-LC in an M4A file.
    case aac
    /// Apple Lossless, in an M4A, MP4 or MOV file.
    case alac
    /// AMR narrowband (8 kHz) or wideband (16 kHz), as call recorders write it.
    case amr
    /// Windows Media Audio, in an ASF file (`.wma`).
    case wma
    /// Any other container libsndfile reads (AU, W64, RF64, ...), or another codec in a file FFmpeg reads (MP3 in MP4).
    case other

    /// Whether ``AudioFileWriter`` and ``AudioFileConverter`` can write this format.
    public var isWritable: Bool { Self.writable.contains(self) }

    /// What libsndfile writes — WAV, CAF, Opus, FLAC, Vorbis, MP3 (through LAME) and AIFF — and FFmpeg: AAC in M4A.
    private static let writable: [AudioFileFormat] = [.wav, .caf, .opus, .flac, .vorbis, .mp3, .aiff, .aac]

    /// Whether a file of this format that this library writes keeps markers (``AudioMetadata/markers``): WAV (cue points),
    /// Opus, FLAC and Vorbis (`CHAPTERnnn` comments), MP3 (ID3 chapters) and AAC (M4A chapters); not CAF and AIFF.
    public var keepsMarkers: Bool { isWritable && self != .caf && self != .aiff }

    /// Whether the samples are stored as PCM, so that a bit depth applies.
    public var isPCM: Bool { self == .wav || self == .caf || self == .aiff }

    /// The usual file name extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .wav, .caf, .opus, .flac, .mp3: rawValue
        case .vorbis: "ogg"
        case .aiff: "aiff"
        case .aac, .alac: "m4a"
        case .amr, .wma: rawValue
        case .other: "raw"
        }
    }

    /// The format a file name extension names (`wav`, `caf`, `opus`, `flac`, `ogg`, `mp3`, `aif`, `aiff`, `m4a`), if any.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "wav", "wave": self = .wav
        case "caf": self = .caf
        case "opus": self = .opus
        case "flac": self = .flac
        case "ogg", "oga": self = .vorbis
        case "mp3": self = .mp3
        case "aif", "aiff", "aifc": self = .aiff
        case "m4a": self = .aac
        default: return nil
        }
    }
}

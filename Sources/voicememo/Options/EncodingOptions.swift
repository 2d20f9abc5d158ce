import ArgumentParser
import AudioIO

/// A format name as the command line takes it: only the formats memos are kept in. AAC-LC is `aac`, the name `info`,
/// `list` and `presets` show; `m4a`, its file's extension, is taken for it too.
enum FileFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case wav, caf, opus, aac, flac

    init?(argument: String) {
        self.init(rawValue: argument == "m4a" ? "aac" : argument)
    }

    var format: AudioFileFormat {
        switch self {
        case .wav: .wav
        case .caf: .caf
        case .opus: .opus
        case .aac: .aac
        case .flac: .flac
        }
    }
}

/// How to encode a memo: a preset, or a format with its parameters. Shared by `import` and `record`.
struct EncodingOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A named set of settings, e.g. voice, music, lossless or m4a.",
        discussion: "Presets are JSON files; see Presets/ in the source tree or share/voicememo-presets.",
        valueName: "name"))
    var preset: String?

    @Option(help: "The file format (aac, also called m4a: AAC-LC in an .m4a file, what phones and Apple's Voice Memos play).")
    var format: FileFormatArgument?

    @Option(help: ArgumentHelp("Frames per second (Opus: 8000, 12000, 16000, 24000 or 48000; M4A: 8000 to 96000, e.g. 44100).", valueName: "hz"))
    var sampleRate: Double?

    @Option(help: ArgumentHelp("Channel count: 1 (mono) or more (M4A: 1 or 2).", valueName: "n"))
    var channels: Int?

    @Option(help: ArgumentHelp("Bits per sample for WAV and CAF: 16, 24 or 32 (float); FLAC: 16 or 24.", valueName: "bits"))
    var bitDepth: Int?

    @Option(help: ArgumentHelp("Opus or M4A bit rate in bits per second, e.g. 32000 (default: Opus 32000, M4A 64000 per channel).", valueName: "bps"))
    var bitrate: Int?

    func validate() throws {
        if preset != nil, format != nil {
            throw ValidationError("Use either --preset or --format, not both.")
        }
        if let bitDepth, AudioSettings.BitDepth(rawValue: bitDepth) == nil {
            throw ValidationError("--bit-depth must be 16, 24 or 32, not \(bitDepth).")
        }
    }

    /// Whether any option was given.
    var isEmpty: Bool {
        preset == nil && format == nil && sampleRate == nil && channels == nil && bitDepth == nil && bitrate == nil
    }

    /// The settings these options describe, starting from the preset, else from `source` kept as it is.
    func settings(for source: AudioFile) throws -> AudioSettings {
        try adjusted(preset.map { try AudioPreset.named($0).settings } ?? AudioSettings(preserving: source, as: format?.format))
    }

    /// The settings these options describe for a new recording, starting from the preset, else from
    /// 16-bit mono WAV at 48 kHz (in the format asked for).
    func recordingSettings() throws -> AudioSettings {
        try adjusted(preset.map { try AudioPreset.named($0).settings } ?? AudioSettings(format: format?.format ?? .wav))
    }

    /// `settings` with the rate, channels, bit depth and bit rate given on the command line, validated.
    private func adjusted(_ settings: AudioSettings) throws -> AudioSettings {
        var settings = settings
        if let sampleRate { settings.sampleRate = sampleRate }
        if let channels { settings.channelCount = channels }
        if let bitDepth { settings.bitDepth = AudioSettings.BitDepth(rawValue: bitDepth) }
        if let bitrate { settings.bitRate = bitrate }
        try settings.validate()
        return settings
    }
}
